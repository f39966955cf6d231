//! The fastsum binary: everything is in the library; this only maps its
//! result to the process exit status.
//!
//! `no_main`: Rust's runtime prologue (`lang_start`) costs a one-file call
//! more than a tenth of its instructions, mostly glibc parsing
//! /proc/self/maps for the main thread's stack guard (see docs/BENCHMARKS.md,
//! "One call per file"). fastsum needs only two of the prologue's effects,
//! done by [`fastsum::prepare_process`]: SIGPIPE ignored, and closed
//! descriptors 0–2 reopened on /dev/null. The arguments are taken from
//! `argv` itself. A stack overflow then ends in SIGSEGV rather than Rust's
//! message.
//!
//! `pow`: the one function of libm the binary calls (indicatif's rate
//! estimate, through `f64::powf`). Defined here, from the `libm` crate (a
//! port of musl's), it keeps libm.so out of the process: loading it was 6 %
//! of a one-file call (docs/BENCHMARKS.md, "One call per file").
//!
//! Both are Unix's: on Windows the arguments are UTF-16, read by std's
//! `args_os` into `OsString`s, under std's own `main`.
#![cfg_attr(all(not(test), unix), no_main)]

#[cfg(all(not(test), unix))]
#[unsafe(no_mangle)]
extern "C" fn main(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    use std::ffi::{CStr, OsStr};
    use std::os::unix::ffi::OsStrExt;

    fastsum::prepare_process();
    let args = (0..usize::try_from(argc).unwrap_or(0)).map(|i| {
        // SAFETY: the C runtime passes `argc` valid, NUL-terminated strings
        // in `argv`, alive for the whole process.
        let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
        OsStr::from_bytes(arg.to_bytes()).to_os_string()
    });
    fastsum::run(args).code()
}

#[cfg(all(not(test), not(unix)))]
fn main() {
    fastsum::prepare_process();
    let code = fastsum::run(std::env::args_os()).code();
    std::process::exit(code);
}

/// libm's `pow`, from the `libm` crate (see the top of this file).
#[cfg(unix)]
#[unsafe(no_mangle)]
extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[cfg(all(test, unix))]
mod tests {
    /// The `pow` every caller in the process gets is a right one.
    #[test]
    fn pow_is_libm_s() {
        assert_eq!(super::pow(2.0, 10.0), 1024.0);
        assert_eq!(super::pow(0.5, -2.0), 4.0);
        assert!((super::pow(10.0, 0.5) - 10f64.sqrt()).abs() < 1e-15);
        assert!(super::pow(-1.0, 0.5).is_nan());
    }
}
