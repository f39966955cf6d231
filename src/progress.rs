//! The progress display: bytes done of total, throughput and ETA on stderr,
//! only when stderr is a terminal, and by default only once a run has gone
//! on for a second (short runs never flash a bar). It reads the `Stats`
//! counters from its own thread, so the hashing path pays nothing for it.
//!
//! The total, when the caller can tell it, is computed by a separate thread
//! while the run goes on (a large tree takes a while to stat); until it is
//! known the display shows bytes and throughput only. On Ctrl-C the
//! line is erased before fastsum dies of the signal, so the terminal is left
//! clean.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Duration;

use crossbeam_channel::{Sender, bounded};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::Progress;
use crate::stats::Stats;
use crate::stdio::set_status;

/// How long a run goes on before the display appears (`Progress::Auto`).
const DELAY: Duration = Duration::from_secs(1);
/// How often the display is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// A running display; `finish` erases it.
pub(crate) struct Display<'scope> {
    stop: Option<Sender<()>>,
    thread: Option<ScopedJoinHandle<'scope, ()>>,
}

/// Should a display run at all?
fn wanted(mode: Progress) -> bool {
    mode != Progress::Never && std::io::stderr().is_terminal()
}

/// The total number of bytes a run will hash, worked out on a thread of
/// its own (`None`: unknown, as in check mode).
pub(crate) type Total = Option<Box<dyn FnOnce() -> u64 + Send>>;

/// Start the display thread.
pub(crate) fn start<'scope>(
    s: &'scope Scope<'scope, '_>,
    mode: Progress,
    stats: &'scope Stats,
    total_of: Total,
) -> Display<'scope> {
    if !wanted(mode) {
        return Display {
            stop: None,
            thread: None,
        };
    }
    let total = Arc::new(AtomicU64::new(0));
    let total_known = Arc::new(AtomicBool::new(false));
    if let Some(total_of) = total_of {
        let (total, known) = (total.clone(), total_known.clone());
        // Detached on purpose: statting a huge tree must not delay the end of
        // the run. If no thread can be had, the display goes without a total.
        let _ = std::thread::Builder::new().spawn(move || {
            total.store(total_of(), Ordering::Relaxed);
            known.store(true, Ordering::Relaxed);
        });
    }
    let delay = if mode == Progress::Always {
        Duration::ZERO
    } else {
        DELAY
    };
    let (stop_tx, stop_rx) = bounded::<()>(1);
    let thread = std::thread::Builder::new().spawn_scoped(s, move || {
        if stop_rx.recv_timeout(delay).is_ok() {
            return;
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let mut with_total = false;
        set_style(&bar, false);
        set_status(Some(bar.clone()));
        install_sigint_cleanup();
        loop {
            if !with_total && total_known.load(Ordering::Relaxed) {
                bar.set_length(total.load(Ordering::Relaxed));
                set_style(&bar, true);
                with_total = true;
            }
            bar.set_position(stats.bytes());
            if stop_rx.recv_timeout(TICK).is_ok() {
                break;
            }
        }
        set_status(None);
        bar.finish_and_clear();
    });
    Display {
        stop: Some(stop_tx),
        // without a thread there is no display, and the run goes on
        thread: thread.ok(),
    }
}

impl Display<'_> {
    /// Stop and erase the display (if one ran).
    pub(crate) fn finish(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn set_style(bar: &ProgressBar, with_total: bool) {
    let template = if with_total {
        "{bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta} [{wide_bar}]"
    } else {
        "{bytes} {binary_bytes_per_sec} {elapsed}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
}

/// On Ctrl-C, erase the progress line, then die of SIGINT as usual (so the
/// shell sees an interrupted command).
fn install_sigint_cleanup() {
    extern "C" fn on_sigint(_: libc::c_int) {
        const CLEAR: &[u8] = b"\r\x1b[2K";
        // SAFETY: write, signal and raise are async-signal-safe; CLEAR is a static buffer.
        unsafe {
            libc::write(2, CLEAR.as_ptr().cast(), CLEAR.len());
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::raise(libc::SIGINT);
        }
    }
    // SAFETY: installs a handler that only calls async-signal-safe functions.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}
