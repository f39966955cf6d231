//! A skipped test says so where plain `cargo test` shows it (issue 29):
//! the test binary runs itself on a test that skips, with libtest's
//! default capture, and its stderr must name the skip, at once and in the
//! list after the result line.

use std::process::Command;

use crate::util::{run, shown, skip};

/// Skips when `FASTSUM_TEST_SKIP_DEMO` is set (only [`a_skip_shows_without_nocapture`]
/// sets it); else passes, checking nothing.
#[test]
fn skip_demo() {
    if std::env::var_os("FASTSUM_TEST_SKIP_DEMO").is_some() {
        skip("a demonstration: FASTSUM_TEST_SKIP_DEMO is set");
    }
}

#[test]
fn a_skip_shows_without_nocapture() {
    let me = std::env::current_exe().unwrap();
    let o = run(Command::new(me).env("FASTSUM_TEST_SKIP_DEMO", "1").args([
        "--exact",
        "skips::skip_demo",
        "--test-threads",
        "1",
    ]));
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("test result: ok. 1 passed"), "{}", shown(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let line = "skips::skip_demo: skipped: a demonstration: FASTSUM_TEST_SKIP_DEMO is set";
    assert!(err.starts_with(&format!("{line}\n")), "{}", shown(&o));
    assert!(
        err.ends_with(&format!("SKIPPED (1 in all, each with its reason; .ci/run installs what the tests need):\n  {line}\n")),
        "{}",
        shown(&o)
    );
}
