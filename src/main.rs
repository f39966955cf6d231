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
#![no_main]

use std::ffi::{CStr, OsStr, c_char, c_int};
use std::os::unix::ffi::OsStrExt;

#[unsafe(no_mangle)]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    fastsum::prepare_process();
    let args = (0..usize::try_from(argc).unwrap_or(0)).map(|i| {
        // SAFETY: the C runtime passes `argc` valid, NUL-terminated strings
        // in `argv`, alive for the whole process.
        let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
        OsStr::from_bytes(arg.to_bytes()).to_os_string()
    });
    fastsum::run(args).code()
}
