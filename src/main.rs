//! The fastsum binary: everything is in the library; this only maps its
//! result to the process exit status.

use std::process::ExitCode;

fn main() -> ExitCode {
    fastsum::run(std::env::args_os()).into()
}
