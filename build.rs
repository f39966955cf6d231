//! What Cargo's profiles cannot say about linking the `fastsum` binary.
//!
//! On Linux with glibc it is linked position-dependent (`-no-pie`): the
//! dynamic loader then has none of its ~3,100 relative relocations to
//! apply at every start, and none of the pages they point into (the option
//! and algorithm tables, vtables) is copied on write: one call on one
//! small file takes ~15 fewer page faults (docs/BENCHMARKS.md, "BLAKE3,
//! XXH3 and one call per file"). What it gives up is the address
//! randomisation of the binary's own code and data; libraries, stack and
//! heap stay randomised. A static build (`crt-static`, a static-pie) is
//! left as rustc makes it.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name| std::env::var(name).unwrap_or_default();
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" && !crt_static
    {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
