//! The one build step, for a faster start of one call on one small file on
//! Linux with glibc (docs/BENCHMARKS.md, "One call on one small file: the
//! page faults"):
//!
//! - the fastsum binary is linked with link/startup.ld, which places the
//!   functions such a call runs side by side (see the head of that file);
//! - built on (and for) a glibc of 2.36 or later, its relative relocations
//!   are packed (`-z pack-relative-relocs`, DT_RELR: ~3,200 of them, 24
//!   bytes each, in about 1 KB the loader reads faster). A binary so linked
//!   needs glibc 2.36, which is why a cross build or an older glibc keeps
//!   them unpacked;
//! - std's unwinder is linked in from gcc's libgcc_eh.a (as a static build
//!   does) rather than loaded from libgcc_s.so.1: a library fewer to map
//!   and to search for every symbol (~7 faults and ~70 µs a call here). Left
//!   out when `cc` has no libgcc_eh.a (a clang-only system).
//!
//! Both are left out where they could break the build: a linker chosen in
//! Cargo's configuration or rustflags (gold and mold do not read the
//! script's `INSERT`), a path the `-Wl,` list would split, or
//! `FASTSUM_STARTUP_ORDER=off` (benches/startup-order.sh: valgrind reads no
//! symbols from the script's section, nor from packed relocations). Without
//! them the binary is the same, only slower to start.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/startup.ld");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    println!("cargo:rerun-if-env-changed=FASTSUM_STARTUP_ORDER");
    let var = |name: &str| env::var(name).unwrap_or_default();
    let gnu_linux = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    // Cargo hands the build script the linker and the rustflags the
    // package is built with: any linker choice there keeps the default
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let linker_chosen = env::var_os("RUSTC_LINKER").is_some()
        || ["fuse-ld", "linker", "link-self-contained"]
            .iter()
            .any(|f| flags.contains(f));
    let script = Path::new(&var("CARGO_MANIFEST_DIR")).join("link/startup.ld");
    let script = script.to_string_lossy();
    let off = var("FASTSUM_STARTUP_ORDER") == "off";
    if !gnu_linux || linker_chosen || off || script.contains(',') {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-T,{script}");
    if var("HOST") == var("TARGET") && glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    // (linked before std's `-lgcc_s`, which then resolves nothing and is
    // dropped as not needed)
    if has_libgcc_eh() {
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}

/// `cc`, the linker driver rustc runs, knows gcc's static unwinder.
fn has_libgcc_eh() -> bool {
    let Ok(out) = Command::new("cc")
        .arg("-print-file-name=libgcc_eh.a")
        .output()
    else {
        return false;
    };
    let path = String::from_utf8_lossy(&out.stdout);
    let path = Path::new(path.trim());
    out.status.success() && path.is_absolute() && path.is_file()
}

/// The build machine's glibc is `major.minor` or later (`getconf
/// GNU_LIBC_VERSION`: "glibc 2.36"); false when that cannot be told.
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text
        .trim()
        .trim_start_matches("glibc ")
        .split('.')
        .map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => out.status.success() && (a, b) >= (major, minor),
        _ => false,
    }
}
