//! The progress display: files done of total, bytes done of total,
//! throughput and ETA on stderr, only when stderr is a terminal, and by
//! default only once a run has gone on for a second (short runs never flash
//! a bar). It reads the `Stats` counters from its own thread, so the
//! hashing path pays nothing for it (the printer counts each input done:
//! one relaxed add).
//!
//! The rate is fastsum's own, not indicatif's estimator: bytes counted over
//! the last few seconds of samples, the first of which is the start of the
//! run (0 bytes), so the first frame after the delay is already right. The
//! whole line is composed here to fit the terminal's width (fields are left
//! out rather than wrapped); indicatif only draws it and steps it around the
//! other writes to the terminal (`stdio::set_status`).
//!
//! The totals, when the run can tell them, are worked out by a separate
//! thread while the run goes on (a large tree takes a while to stat; a
//! check or an update knows what is listed only once it has read its
//! manifest: [`plan`]); until they are known the display shows what is
//! done, throughput and elapsed time. Bytes to come that no one stats are
//! reckoned from the files done (`~`). On SIGINT, SIGTERM or SIGHUP the
//! line is erased before fastsum dies of the signal, so the terminal is
//! left clean.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, bounded};
use indicatif::{BinaryBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::Progress;
use crate::stats::Stats;
use crate::stdio::{set_status, status_draw};

/// How long a run goes on before the display appears (`Progress::Auto`).
const DELAY: Duration = Duration::from_secs(1);
/// How often the display is redrawn.
const TICK: Duration = Duration::from_millis(100);
/// The rate is measured over about this much of the recent past.
const WINDOW: Duration = Duration::from_secs(5);
/// Below this much measured time no rate (nor ETA) is shown: a few
/// milliseconds of counting would give a wild figure.
const MIN_SPAN: Duration = Duration::from_millis(300);
/// The narrowest bar worth drawing, in cells.
const MIN_BAR: usize = 10;

/// A running display; `finish` erases it.
pub(crate) struct Display<'scope> {
    stop: Option<Sender<()>>,
    thread: Option<ScopedJoinHandle<'scope, ()>>,
}

/// Should a display run at all?
pub(crate) fn wanted(mode: Progress) -> bool {
    mode != Progress::Never && std::io::stderr().is_terminal()
}

/// What a run will do, worked out on a thread of its own: how many inputs
/// and, if it can tell, how many bytes (`None`: it cannot tell).
pub(crate) type Total = Box<dyn FnOnce() -> Option<(u64, Option<u64>)> + Send>;

/// Work out what the run will do with `total_of`, on a thread of its own,
/// if a display runs to show it (a command that learns what is to come
/// only once it has read a manifest tells it here).
pub(crate) fn plan(stats: &Stats, total_of: impl FnOnce() -> Total) {
    let planned = stats.planned();
    if !planned.wanted.load(Ordering::Relaxed) {
        return;
    }
    let (planned, total_of) = (Arc::clone(planned), total_of());
    // Detached on purpose: statting a huge tree must not delay the end of
    // the run. If no thread can be had, the display goes without a total.
    let _ = std::thread::Builder::new().spawn(move || {
        if let Some((inputs, bytes)) = total_of() {
            planned.set(inputs, bytes);
        }
    });
}

/// Start the display thread, and `total_of`'s. The run is taken to start
/// now: call this before any input is hashed.
pub(crate) fn start<'scope>(
    s: &'scope Scope<'scope, '_>,
    mode: Progress,
    stats: &'scope Stats,
    total_of: Option<Total>,
) -> Display<'scope> {
    if !wanted(mode) {
        return Display {
            stop: None,
            thread: None,
        };
    }
    let started = Instant::now();
    stats.planned().wanted.store(true, Ordering::Relaxed);
    if let Some(total_of) = total_of {
        plan(stats, || total_of);
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
        // the message is the whole line; `wide_msg` also cuts it to the width
        // indicatif measures, should the terminal shrink between two ticks
        if let Ok(style) = ProgressStyle::with_template("{wide_msg}") {
            bar.set_style(style);
        }
        let mut rate = Rate::new(started);
        set_status(Some(bar.clone()));
        let cleanup = crate::sys::exit_signals::install(crate::stdio::erase_status_for_exit);
        loop {
            let now = Instant::now();
            let (files, total) = stats.planned().get();
            let done = stats.bytes();
            let frame = Frame {
                files: stats.inputs_done(),
                files_total: files,
                done,
                total: total.filter(|&t| t > 0),
                per_sec: rate.sample(now, done),
                elapsed: now - started,
            };
            let line = frame.line(term_width());
            status_draw(|| bar.set_message(line));
            if stop_rx.recv_timeout(TICK).is_ok() {
                break;
            }
        }
        bar.finish_and_clear();
        set_status(None);
        crate::sys::exit_signals::restore(cleanup);
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

/// Throughput over a sliding window of (time, bytes) samples.
struct Rate {
    samples: VecDeque<(Instant, u64)>,
}

impl Rate {
    /// A rate measured from `started`, when no byte had been hashed.
    fn new(started: Instant) -> Rate {
        Rate {
            samples: VecDeque::from([(started, 0)]),
        }
    }

    /// Record `done` bytes at `now`; the bytes per second over the window,
    /// or `None` while too little time has passed to tell.
    fn sample(&mut self, now: Instant, done: u64) -> Option<f64> {
        self.samples.push_back((now, done));
        // keep one sample at least WINDOW old, so the window spans WINDOW
        while self
            .samples
            .get(1)
            .is_some_and(|&(t, _)| now.duration_since(t) >= WINDOW)
        {
            self.samples.pop_front();
        }
        let &(t0, b0) = self.samples.front()?;
        let span = now.duration_since(t0);
        (span >= MIN_SPAN).then(|| done.saturating_sub(b0) as f64 / span.as_secs_f64())
    }
}

/// What one frame of the display says.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Inputs done, and how many there are when known.
    files: u64,
    files_total: Option<u64>,
    /// Bytes hashed, and how many there are when known.
    done: u64,
    total: Option<u64>,
    per_sec: Option<f64>,
    elapsed: Duration,
}

impl Frame {
    /// The line for a terminal `width` columns wide: the fields that fit, in
    /// order of importance, then a bar in the room left, if there is enough.
    fn line(&self, width: usize) -> String {
        // a count the run has gone past says nothing more
        let files_total = self.files_total.filter(|&t| t >= self.files);
        let mut fields = vec![match files_total {
            Some(t) => format!("{}/{t} files", self.files),
            None => format!("{} files", self.files),
        }];
        let total = self.bytes_total(files_total);
        fields.push(match total {
            Some((t, true)) => format!("{}/{}", BinaryBytes(self.done), BinaryBytes(t)),
            Some((t, false)) => format!("{}/~{}", BinaryBytes(self.done), BinaryBytes(t)),
            None => BinaryBytes(self.done).to_string(),
        });
        if let Some(per_sec) = self.per_sec {
            fields.push(format!("{}/s", BinaryBytes(per_sec as u64)));
        }
        match total {
            Some((t, _)) => {
                if let Some(per_sec) = self.per_sec.filter(|&r| r > 0.0) {
                    let left = t.saturating_sub(self.done) as f64 / per_sec;
                    fields.push(format!("ETA {}", clock(Duration::from_secs_f64(left))));
                }
            }
            None => fields.push(clock(self.elapsed)),
        }
        let mut line = fit(fields, width);
        // the bar goes by bytes when their total is known, else by files
        let part = match (total, files_total) {
            (Some((t, true)), _) => Some((self.done, t)),
            (_, Some(t)) if t > 0 => Some((self.files, t)),
            _ => None,
        };
        if let Some((done, total)) = part {
            // " [" + cells + "]"
            let cells = width.saturating_sub(line.len() + 3);
            if cells >= MIN_BAR {
                line.push_str(" [");
                line.push_str(&bar(done, total, cells));
                line.push(']');
            }
        }
        line
    }

    /// The bytes the run will hash: known (true), or reckoned (false) from
    /// the inputs done and to come, at the mean size of those done.
    fn bytes_total(&self, files_total: Option<u64>) -> Option<(u64, bool)> {
        if let Some(t) = self.total {
            return Some((t, true));
        }
        let files_total = files_total.filter(|_| self.files > 0)?;
        let mean = self.done as f64 / self.files as f64;
        Some((((mean * files_total as f64) as u64).max(self.done), false))
    }
}

/// The `fields` that fit in `width`, in order, blank-separated; the first
/// cut to the width if even it does not fit.
fn fit(fields: Vec<String>, width: usize) -> String {
    if fields.first().is_some_and(|f| f.len() > width) {
        return fields[0].chars().take(width).collect();
    }
    let mut line = String::new();
    for f in fields {
        let sep = usize::from(!line.is_empty());
        if line.len() + sep + f.len() > width {
            break;
        }
        if sep == 1 {
            line.push(' ');
        }
        line.push_str(&f);
    }
    line
}

/// `cells` cells of bar for `done` of `total`: `===>   `.
fn bar(done: u64, total: u64, cells: usize) -> String {
    let fraction = (done as f64 / total as f64).clamp(0.0, 1.0);
    let full = ((fraction * cells as f64) as usize).min(cells);
    let mut s = "=".repeat(full);
    if full < cells {
        s.push('>');
        s.push_str(&" ".repeat(cells - full - 1));
    }
    s
}

/// A duration as `m:ss` or `h:mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// The width of the terminal on stderr, in columns (80 if it cannot tell).
fn term_width() -> usize {
    crate::sys::term_width().unwrap_or(80)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn first_rate_counts_from_the_start_of_the_run() {
        let t0 = Instant::now();
        let mut r = Rate::new(t0);
        // the first frame comes after a second, with 738 MiB already hashed
        let got = r.sample(t0 + Duration::from_secs(1), 738 * MIB).unwrap();
        assert!((got - (738 * MIB) as f64).abs() < 1.0, "{got}");
    }

    #[test]
    fn rate_is_unknown_for_a_moment_then_follows_the_recent_past() {
        let t0 = Instant::now();
        let mut r = Rate::new(t0);
        assert_eq!(r.sample(t0 + Duration::from_millis(100), MIB), None);
        let mut r = Rate::new(t0);
        // 100 MiB/s for 10 s, then 10 MiB/s for 10 s
        let mut done = 0;
        for i in 1..=200u64 {
            done += if i <= 100 { 10 * MIB } else { MIB };
            let got = r.sample(t0 + Duration::from_millis(100 * i), done);
            assert_eq!(got.is_some(), i >= 3, "{i}");
            let got = got.unwrap_or(0.0);
            if i == 100 {
                assert!((got / MIB as f64 - 100.0).abs() < 1.0, "{got}");
            }
            if i == 200 {
                assert!((got / MIB as f64 - 10.0).abs() < 1.0, "{got}");
            }
        }
        assert!(r.samples.len() <= 52, "{}", r.samples.len());
    }

    fn frame(done: u64, total: Option<u64>) -> Frame {
        Frame {
            files: 3,
            files_total: Some(10),
            done,
            total,
            per_sec: Some(100.0 * MIB as f64),
            elapsed: Duration::from_secs(75),
        }
    }

    #[test]
    fn line_has_files_rate_eta_and_a_bar_that_fills_the_width() {
        let l = frame(512 * MIB, Some(1024 * MIB)).line(80);
        assert!(
            l.starts_with("3/10 files 512.00 MiB/1.00 GiB 100.00 MiB/s ETA 0:05 [====="),
            "{l}"
        );
        assert_eq!(l.len(), 80, "{l}");
        assert!(l.ends_with("]"), "{l}");
        let f = Frame {
            files_total: None,
            ..frame(5 * MIB, None)
        };
        assert_eq!(f.line(80), "3 files 5.00 MiB 100.00 MiB/s 1:15");
    }

    #[test]
    fn without_a_byte_total_one_is_reckoned_and_the_bar_counts_files() {
        // 3 files of 10 done, 30 MiB: about 100 MiB, 70 MiB to go
        let l = frame(30 * MIB, None).line(80);
        assert!(
            l.starts_with("3/10 files 30.00 MiB/~100.00 MiB 100.00 MiB/s ETA 0:00 [======>"),
            "{l}"
        );
        // a file count the run went past is dropped; a reckoning never
        // falls below what is done
        let f = Frame {
            files: 12,
            ..frame(30 * MIB, None)
        };
        assert_eq!(f.line(80), "12 files 30.00 MiB 100.00 MiB/s 1:15");
        // nothing done yet: nothing to reckon from
        let f = Frame {
            files: 0,
            ..frame(0, None)
        };
        assert!(
            f.line(80)
                .starts_with("0/10 files 0 B 100.00 MiB/s 1:15 [>  ")
        );
    }

    #[test]
    fn narrow_terminals_get_fewer_fields_never_a_longer_line() {
        for width in 0..100 {
            for f in [frame(512 * MIB, Some(1024 * MIB)), frame(5 * MIB, None)] {
                let l = f.line(width);
                assert!(l.len() <= width, "{width}: {l}");
            }
        }
        let l = frame(512 * MIB, Some(1024 * MIB)).line(40);
        assert_eq!(l, "3/10 files 512.00 MiB/1.00 GiB");
        let l = frame(512 * MIB, Some(1024 * MIB)).line(12);
        assert_eq!(l, "3/10 files");
        let l = frame(512 * MIB, Some(1024 * MIB)).line(6);
        assert_eq!(l, "3/10 f");
    }

    #[test]
    fn bar_and_clock() {
        assert_eq!(bar(0, 10, 4), ">   ");
        assert_eq!(bar(5, 10, 4), "==> ");
        assert_eq!(bar(10, 10, 4), "====");
        assert_eq!(bar(20, 10, 4), "====");
        assert_eq!(clock(Duration::from_secs(5)), "0:05");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }
}
