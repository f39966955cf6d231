//! The one build step: on Linux with glibc, the fastsum binary is linked
//! with link/startup.ld, which places the functions a one-file call runs
//! side by side (fewer page faults from exec to exit: see the head of that
//! file). Left out where the script could break the build: a linker chosen
//! in Cargo's configuration or rustflags (gold and mold do not read its
//! `INSERT`), a path the `-Wl,` list would split, or
//! `FASTSUM_STARTUP_ORDER=off` (benches/startup-order.sh: valgrind reads no
//! symbols from the script's section). Without it the binary is the same,
//! only slower to start.

use std::env;
use std::path::Path;

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
    if gnu_linux && !linker_chosen && !off && !script.contains(',') {
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{script}");
    }
}
