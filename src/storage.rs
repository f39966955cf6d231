//! The one place where a run judges its storage: is a device *far*, each
//! request (open, stat, read, listing) waiting on a round trip, so that
//! many should be in flight at once? One judgement per device (`st_dev`),
//! learnt once a run.
//!
//! A device is seeded at its first open by what the system says of its
//! file system: a network or FUSE file system (NFS, SMB, 9P, Ceph, sshfs,
//! rclone, s3fs, …: `sys::attributes_cached`) starts far, any other near.
//! Then what its requests cost decides: [`SLOW_IN_A_ROW`] requests in a
//! row that waited on the device [`SLOW`] or more make it far,
//! [`FAST_IN_A_ROW`] quick ones in a row make it near again. On a network
//! or FUSE file system, how many requests to keep in flight at once is
//! learnt as the run goes ([`Gauge`]): the opener's crew, the far
//! readers and the walk's directory readers follow it. A busy CPU is
//! not slow storage: the time a request's thread waited for a core (its
//! run-queue delay, [`crate::sys::run_queue_wait`]) is taken off what the
//! request cost before it is judged ([`Timer`]).

use std::cell::Cell;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// A request that waited on the device this long was a round trip, not
/// the page cache's answer (which takes microseconds).
pub(crate) const SLOW: Duration = Duration::from_micros(250);

/// This many slow requests in a row make a device far.
const SLOW_IN_A_ROW: u32 = 4;

/// This many quick requests in a row make a device near again (a network
/// file system answering from its caches, or a fast local server).
const FAST_IN_A_ROW: u32 = 64;

/// The requests in flight a far device starts with: through sshfs at a
/// 1 ms round trip, 8 opens and 8 reads in flight were quicker than 16 and
/// 16, and more than 32 were slower than 16 (docs/BENCHMARKS.md, issue 41).
const START: usize = 8;

/// The fewest and the most requests of a kind kept in flight.
const FEWEST: usize = 1;
pub(crate) const MOST: usize = 64;

/// A count that brings less than this share more files a second than the
/// one before it is no better (the measure's noise).
const GAIN: f64 = 0.08;

/// Answers this many times slower than the quickest seen, with a fifth
/// fewer files a second: the server is queueing, or overloaded. (The
/// quickest of noisy means is low, and a busy CPU makes answers look
/// slower: a wide margin.)
const SLOWER: f64 = 3.0;

/// How many fewer files a second count as fewer, for [`SLOWER`].
const FEWER: f64 = 0.2;

/// A settled count tries one step up again after this many windows.
const PROBE_AFTER: u32 = 8;

/// A window with this share of its files failing transiently (EAGAIN,
/// ETIMEDOUT, EIO, EBUSY, ...) is an error storm: the count halves.
const STORM: f64 = 1.0 / 16.0;

/// What a request asked of the storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Request {
    /// Opening a file (with its `fstat`).
    Open,
    /// A file's first read.
    Read,
    /// Listing a directory (the walk; `-c`'s listing of a directory its
    /// check file names files in).
    Listing,
    /// Looking a file up by its name, or asking the file system itself
    /// what a file is now: a stat made on its own, not an open's `fstat`
    /// (the walk's entering a directory, `--update`'s lookups, `-c`'s
    /// lookups of listed names, the proof of a far file's end).
    Stat,
}

/// How many request kinds there are.
const KINDS: usize = 4;

/// What the run knows of one device.
#[derive(Debug)]
struct Device {
    dev: u64,
    /// Its file system is a network or FUSE one (the seed).
    remote: bool,
    far: bool,
    slow: u32,
    fast: u32,
    /// How many requests to keep in flight, and what the current window
    /// of files has cost so far.
    gauge: Gauge,
    window: Tally,
}

/// One window of files handed on from a far device: when it started, how
/// many, how many failed transiently, and the opens timed meanwhile.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    start: Option<Instant>,
    files: u64,
    errors: u64,
    opens: u64,
    open_ns: u64,
}

/// What one window of files at a count of requests in flight brought.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window {
    /// Files handed on.
    pub(crate) files: u64,
    /// How long it took.
    pub(crate) secs: f64,
    /// The mean time an open waited on the device, if any was timed.
    pub(crate) latency: Option<f64>,
    /// Files that failed with an error a busy server gives.
    pub(crate) errors: u64,
}

/// How many requests to keep in flight on one far device, learnt by what
/// each count brings, a window of files at a time: while growing, each
/// window at a count half again as large as the one before, for as long as
/// that brings [`GAIN`] more files a second; where it does not, back to the
/// count that did best, settled. Settled, one step up is tried again every
/// [`PROBE_AFTER`] windows (the server may have freed up); answers
/// [`SLOWER`] than the quickest seen with [`FEWER`] files a second take a
/// quarter off (a queueing server: more in flight only wait longer), and an
/// error storm ([`STORM`]) halves it. Pure: fed what each window measured,
/// so that it is tested with made-up costs.
#[derive(Debug, Clone)]
pub(crate) struct Gauge {
    limit: usize,
    growing: bool,
    /// The best count seen, with its files a second.
    best: Option<(usize, f64)>,
    /// The quickest mean open seen: the device's own round trip.
    quickest: Option<f64>,
    /// Windows since the count settled.
    calm: u32,
    /// The fewest and the most it was, for `--stats`.
    range: (usize, usize),
}

impl Gauge {
    pub(crate) const fn new(start: usize) -> Gauge {
        Gauge {
            limit: start,
            growing: true,
            best: None,
            quickest: None,
            calm: 0,
            range: (start, start),
        }
    }

    /// The requests to keep in flight now.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// How many files a window takes at this count: enough for every
    /// request in flight to have ended several times.
    pub(crate) fn window_files(&self) -> u64 {
        (4 * self.limit as u64).max(32)
    }

    fn set(&mut self, limit: usize) {
        self.limit = limit.clamp(FEWEST, MOST);
        self.range = (self.range.0.min(self.limit), self.range.1.max(self.limit));
    }

    fn step_up(&self) -> usize {
        (self.limit + self.limit / 2).max(self.limit + 1).min(MOST)
    }

    /// A window at the current count ended, having brought `w`.
    pub(crate) fn ended(&mut self, w: Window) {
        let rate = w.files as f64 / w.secs.max(1e-9);
        if w.errors as f64 >= w.files.max(1) as f64 * STORM {
            self.set(self.limit / 2);
            (self.growing, self.best, self.calm) = (false, None, 0);
            return;
        }
        let slower = match (w.latency, self.quickest) {
            (Some(l), Some(q)) => l > q * SLOWER,
            _ => false,
        };
        if let Some(l) = w.latency {
            self.quickest = Some(self.quickest.map_or(l, |q| q.min(l)));
        }
        let better = |best: Option<(usize, f64)>, gain: f64| {
            best.is_none_or(|(_, r)| rate > r * (1.0 + gain))
        };
        if self.growing {
            if better(self.best, GAIN) {
                self.best = Some((self.limit, rate));
                let up = self.step_up();
                self.growing = up > self.limit;
                self.set(up);
            } else {
                let back = self.best.map_or(self.limit, |(n, _)| n);
                self.set(back);
                (self.growing, self.calm) = (false, 0);
            }
            return;
        }
        let worse = self.best.is_some_and(|(_, r)| rate < r * (1.0 - FEWER));
        if slower && worse {
            self.set(self.limit - self.limit / 4);
            (self.best, self.calm) = (Some((self.limit, rate)), 0);
            return;
        }
        // (what the settled count brings now is the mark to beat)
        self.best = Some((self.limit, rate));
        self.calm += 1;
        if self.calm >= PROBE_AFTER && self.step_up() > self.limit {
            (self.growing, self.calm) = (true, 0);
            let up = self.step_up();
            self.set(up);
        }
    }
}

/// Is `e` what a busy or overloaded server answers (so fewer requests in
/// flight may help), rather than what the file is (missing, a directory)?
pub(crate) fn is_transient(e: &io::Error) -> bool {
    crate::sys::is_server_busy(e)
}

/// The run's judgement of each device it reads.
#[derive(Debug)]
pub(crate) struct Storage {
    devices: Mutex<Vec<Device>>,
    /// Some device is far (a quick "no" for the page cache's runs).
    any_far: AtomicBool,
    /// Some device is far or counts slow requests: a quick request must
    /// be recorded (else it changes nothing).
    watched: AtomicBool,
    /// Requests timed by kind (open, read, listing, stat) while some
    /// device was watched, and how long they waited on the device in all,
    /// for `--stats`.
    requests: [AtomicU64; KINDS],
    waited_ns: [AtomicU64; KINDS],
    /// The most requests of each kind in flight at once, where a crew
    /// keeps several (0: one at a time).
    at_once: [AtomicU64; KINDS],
    /// Some device was judged far at some point of the run.
    was_far: AtomicBool,
    /// The opens to keep in flight: the count of the far device that
    /// handed on a file last.
    opens: AtomicUsize,
    /// The device that handed on a file last (`u64::MAX`: none yet).
    last: AtomicU64,
}

impl Default for Storage {
    fn default() -> Self {
        Self::new()
    }
}

/// The process's storage observer: every reader and the walk feed it.
static STORAGE: Storage = Storage::new();

/// The process's storage observer.
pub(crate) fn observer() -> &'static Storage {
    &STORAGE
}

impl Storage {
    pub(crate) const fn new() -> Storage {
        Storage {
            devices: Mutex::new(Vec::new()),
            any_far: AtomicBool::new(false),
            watched: AtomicBool::new(false),
            requests: [const { AtomicU64::new(0) }; KINDS],
            waited_ns: [const { AtomicU64::new(0) }; KINDS],
            at_once: [const { AtomicU64::new(0) }; KINDS],
            was_far: AtomicBool::new(false),
            opens: AtomicUsize::new(START),
            last: AtomicU64::new(u64::MAX),
        }
    }

    fn with<R>(&self, dev: u64, f: impl FnOnce(&mut Device) -> R) -> R {
        let mut devices = self
            .devices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let i = match devices.iter().position(|d| d.dev == dev) {
            Some(i) => i,
            None => {
                devices.push(Device {
                    dev,
                    remote: false,
                    far: false,
                    slow: 0,
                    fast: 0,
                    gauge: Gauge::new(START),
                    window: Tally::default(),
                });
                devices.len() - 1
            }
        };
        let r = f(&mut devices[i]);
        let any = devices.iter().any(|d| d.far);
        self.any_far.store(any, Relaxed);
        if any {
            self.was_far.store(true, Relaxed);
        }
        let watched = any || devices.iter().any(|d| d.slow > 0);
        self.watched.store(watched, Relaxed);
        r
    }

    /// Device `dev` was opened for the first time (or again): `remote`,
    /// what the system says of its file system, seeds its judgement the
    /// first time only.
    pub(crate) fn seed(&self, dev: u64, remote: bool) {
        if !remote && !self.any_far.load(Relaxed) {
            // (a near device unseen is near: nothing to record)
            return;
        }
        self.with(dev, |d| {
            if d.slow == 0 && d.fast == 0 && !d.far && remote {
                d.far = true;
                d.remote = true;
                d.slow = SLOW_IN_A_ROW;
            }
        });
    }

    /// A request of `kind` to device `dev` waited `waited` on the device
    /// (None: cannot tell, the thread's first slow request). A quick one
    /// while no device is watched changes nothing and is not counted
    /// (`--stats` counts what was timed on far storage): the page cache's
    /// runs, every thread timing every file's first read, share no
    /// counter.
    pub(crate) fn saw(&self, dev: u64, kind: Request, waited: Option<Duration>) {
        let Some(waited) = waited else { return };
        let slow = waited >= SLOW;
        if !slow && !self.watched.load(Relaxed) {
            return;
        }
        let k = kind as usize;
        self.requests[k].fetch_add(1, Relaxed);
        let ns = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
        self.waited_ns[k].fetch_add(ns, Relaxed);
        self.with(dev, |d| {
            if kind == Request::Open {
                d.window.opens += 1;
                d.window.open_ns = d.window.open_ns.saturating_add(ns);
            }
            if slow {
                d.fast = 0;
                d.slow = d.slow.saturating_add(1);
                d.far |= d.slow >= SLOW_IN_A_ROW;
            } else {
                d.slow = 0;
                d.fast = d.fast.saturating_add(1);
                d.far &= d.fast < FAST_IN_A_ROW;
            }
        });
    }

    /// Is device `dev` far: should its requests be many in flight?
    pub(crate) fn is_far(&self, dev: u64) -> bool {
        self.any_far.load(Relaxed) && self.with(dev, |d| d.far)
    }

    /// How many reads to keep in flight at most on device `dev`, if it
    /// bounds them: a network or FUSE client's reads go through its page
    /// cache and its own request queue (FUSE sends 12 in the background;
    /// sshfs serves 10 requests at once), so that past what its server
    /// takes at once more in flight only wait longer in its queue
    /// (docs/BENCHMARKS.md, issue 41). None: as many as pay.
    pub(crate) fn reads_at_once(&self, dev: u64) -> Option<usize> {
        if !self.any_far.load(Relaxed) {
            return None;
        }
        self.with(dev, |d| d.remote.then(|| d.gauge.limit()))
    }

    /// Is device `dev` a network or FUSE file system (its seed) that the
    /// run treats as far (its requests counted, [`Storage::reads_at_once`])?
    pub(crate) fn is_remote(&self, dev: u64) -> bool {
        self.reads_at_once(dev).is_some()
    }

    /// How many listings to keep in flight on device `dev`, `most` at
    /// most (the walk's readers): on a network or FUSE file system, the
    /// count its requests in flight settled at, as for its reads
    /// ([`Storage::reads_at_once`]), and never fewer than one; elsewhere
    /// `most` (a local disk's walk is as it was).
    pub(crate) fn listings_at_once(&self, dev: u64, most: usize) -> usize {
        self.reads_at_once(dev)
            .map_or(most, |n| n.clamp(FEWEST, most.max(FEWEST)))
    }

    /// How many opens to keep in flight on far storage (the crew asks
    /// before it knows where the next input is): the count of the device
    /// that handed on a file last.
    pub(crate) fn opens_at_once(&self) -> usize {
        self.opens.load(Relaxed)
    }

    /// A file of the crew's was handed on: opened on device `dev`, or
    /// failed with `error` (on the device of the one before). Each
    /// [`Gauge::window_files`] files make a window that the device's count
    /// learns from.
    pub(crate) fn handed(&self, dev: Option<u64>, error: Option<&io::Error>) {
        let dev = match dev {
            Some(d) => {
                self.last.store(d, Relaxed);
                d
            }
            None => match self.last.load(Relaxed) {
                u64::MAX => return,
                d => d,
            },
        };
        let transient = error.is_some_and(is_transient);
        let now = Instant::now();
        let limit = self.with(dev, |d| {
            let w = &mut d.window;
            let start = *w.start.get_or_insert(now);
            w.files += 1;
            w.errors += u64::from(transient);
            if w.files >= d.gauge.window_files() {
                d.gauge.ended(Window {
                    files: w.files,
                    secs: now.duration_since(start).as_secs_f64(),
                    latency: (w.opens > 0).then(|| w.open_ns as f64 / 1e9 / w.opens as f64),
                    errors: w.errors,
                });
                *w = Tally {
                    start: Some(now),
                    ..Tally::default()
                };
            }
            d.gauge.limit()
        });
        self.opens.store(limit, Relaxed);
    }

    /// Is any device far? (The opener asks before it knows where the next
    /// input is.)
    pub(crate) fn any_far(&self) -> bool {
        self.any_far.load(Relaxed)
    }

    /// Up to `n` requests of `kind` are kept in flight at once.
    pub(crate) fn in_flight(&self, kind: Request, n: usize) {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.at_once[kind as usize].fetch_max(n, Relaxed);
    }

    /// `--stats`' lines, when some device was judged far: the requests
    /// timed by kind, their mean wait on the device, and how many were
    /// kept in flight at once.
    pub(crate) fn report(&self, program: &str) -> String {
        if !self.was_far.load(Relaxed) {
            return String::new();
        }
        let mut s = String::new();
        let devices = self
            .devices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for d in devices.iter().filter(|d| d.window.start.is_some()) {
            let (g, (lo, hi)) = (&d.gauge, d.gauge.range);
            s.push_str(&format!(
                "{program}: stats: requests in flight on far storage: settled at {} \
                 (started at {START}, {lo} to {hi} tried)\n",
                g.limit()
            ));
        }
        drop(devices);
        for (k, kind) in ["opens", "reads", "listings", "stats"].iter().enumerate() {
            let n = self.requests[k].load(Relaxed);
            let ms = self.waited_ns[k].load(Relaxed) as f64 / 1e6 / n.max(1) as f64;
            let at_once = match self.at_once[k].load(Relaxed) {
                0 => String::new(),
                m => format!(", up to {m} in flight"),
            };
            s.push_str(&format!(
                "{program}: stats: {kind} timed on far storage: {n}, {ms:.2} ms each on average{at_once}\n"
            ));
        }
        s
    }
}

/// Make request `f` of `kind`, timed for the process's storage observer:
/// what it waited on the device, told of the device `dev` says its answer
/// is on (a failed request tells nothing).
pub(crate) fn timed<T>(
    kind: Request,
    dev: impl FnOnce(&T) -> u64,
    f: impl FnOnce() -> io::Result<T>,
) -> io::Result<T> {
    let timer = Timer::start();
    let answer = f()?;
    observer().saw(dev(&answer), kind, timer.waited());
    Ok(answer)
}

thread_local! {
    /// This thread's run-queue delay when last asked.
    static QUEUED: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Times one request: how long it waited on the device.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timer(Instant);

impl Timer {
    pub(crate) fn start() -> Timer {
        Timer(Instant::now())
    }

    /// How long the request took, waits for a core included.
    pub(crate) fn took(self) -> Duration {
        self.0.elapsed()
    }

    /// How long the request waited on the device: its time, less what its
    /// thread waited for a core meanwhile when it was slow. None when that
    /// cannot be told yet (the thread's first slow request: its run-queue
    /// delay before it is not known).
    pub(crate) fn waited(self) -> Option<Duration> {
        self.waited_beyond(SLOW)
    }

    /// [`Timer::waited`], for a rule whose threshold is `floor`: a request
    /// quicker than that is taken at its time, a slower one less what its
    /// thread waited for a core.
    pub(crate) fn waited_beyond(self, floor: Duration) -> Option<Duration> {
        let took = self.0.elapsed();
        if took < floor {
            return Some(took);
        }
        let Some(now) = crate::sys::run_queue_wait() else {
            return Some(took);
        };
        // the delay since the thread last asked includes this request's
        let before = QUEUED.with(|q| q.replace(Some(now)));
        on_device(took, before, now)
    }
}

/// What a slow request that took `took` waited on the device, its thread's
/// run-queue delay having grown from `before` (None: not known) to `now`:
/// at most `took` less that growth (which may include waits outside the
/// request: the judgement leans to near).
fn on_device(took: Duration, before: Option<Duration>, now: Duration) -> Option<Duration> {
    before.map(|b| took.saturating_sub(now.saturating_sub(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLOWER: Option<Duration> = Some(Duration::from_millis(2));
    const QUICK: Option<Duration> = Some(Duration::from_micros(5));

    #[test]
    fn a_device_is_far_after_slow_requests_in_a_row_and_near_after_quick_ones() {
        let s = Storage::new();
        for _ in 0..SLOW_IN_A_ROW - 1 {
            s.saw(1, Request::Open, SLOWER);
        }
        s.saw(1, Request::Read, QUICK);
        for _ in 0..SLOW_IN_A_ROW - 1 {
            s.saw(1, Request::Open, SLOWER);
        }
        assert!(!s.is_far(1), "a quick request breaks the row");
        s.saw(1, Request::Listing, SLOWER);
        assert!(s.is_far(1));
        assert!(!s.is_far(2), "one judgement per device");
        for _ in 0..FAST_IN_A_ROW - 1 {
            s.saw(1, Request::Read, QUICK);
        }
        assert!(s.is_far(1));
        s.saw(1, Request::Read, QUICK);
        assert!(!s.is_far(1) && !s.any_far());
    }

    #[test]
    fn a_network_file_system_starts_far_and_a_local_one_near() {
        let s = Storage::new();
        s.seed(7, true);
        s.seed(8, false);
        assert!(s.is_far(7) && !s.is_far(8));
        assert_eq!(s.reads_at_once(7), Some(START));
        assert_eq!(s.reads_at_once(8), None);
        // the seed counts the first time only: observations decide after
        for _ in 0..FAST_IN_A_ROW {
            s.saw(7, Request::Open, QUICK);
        }
        s.seed(7, true);
        assert!(!s.is_far(7));
    }

    #[test]
    fn what_cannot_be_told_is_not_judged() {
        let s = Storage::new();
        for _ in 0..SLOW_IN_A_ROW * 2 {
            s.saw(1, Request::Open, None);
        }
        assert!(!s.is_far(1));
        assert_eq!(s.requests[0].load(Relaxed), 0);
    }

    /// A made-up server: `rate(n)` files a second and `latency(n)` seconds
    /// an open with `n` requests in flight; `windows` windows of it.
    fn drive(g: &mut Gauge, windows: usize, model: impl Fn(usize) -> (f64, f64)) -> Vec<usize> {
        (0..windows)
            .map(|_| {
                let (rate, latency) = model(g.limit());
                let files = g.window_files();
                let secs = files as f64 / rate;
                g.ended(Window {
                    files,
                    secs,
                    latency: Some(latency),
                    errors: 0,
                });
                g.limit()
            })
            .collect()
    }

    const RTT: f64 = 0.001;

    /// A server that answers `cap` requests at once, the rest queued.
    fn capped(cap: usize) -> impl Fn(usize) -> (f64, f64) {
        move |n| {
            let busy = n.min(cap) as f64;
            (busy / RTT, RTT * (n as f64 / cap as f64).max(1.0))
        }
    }

    #[test]
    fn the_count_grows_while_more_in_flight_bring_more_and_settles_where_they_stop() {
        let mut g = Gauge::new(START);
        let seen = drive(&mut g, 12, capped(18));
        // 8, 12, 18, 27: 27 brought no more than 18 did (18 answered)
        assert_eq!(&seen[..4], &[12, 18, 27, 18], "{seen:?}");
        assert!(seen[4..].iter().all(|&n| n == 18 || n == 27), "{seen:?}");
        assert_eq!(g.range, (START, 27));
    }

    /// A server limited to 8 requests at once: more in flight only queue,
    /// and the count stays at 8 (one step up tried now and then).
    #[test]
    fn a_server_limited_to_eight_keeps_the_count_at_eight() {
        let mut g = Gauge::new(START);
        let seen = drive(&mut g, 40, capped(8));
        assert_eq!(seen[0], 12);
        assert_eq!(seen[1], 8, "{seen:?}");
        let probes = seen.iter().filter(|&&n| n > 8).count();
        assert!(probes <= 1 + 40 / PROBE_AFTER as usize, "{seen:?}");
        assert!(seen.iter().all(|&n| n <= 12), "{seen:?}");
        assert_eq!(g.limit(), 8);
    }

    /// A client that gets slower with more in flight (sshfs's, past 16):
    /// the count comes back to where it did best.
    #[test]
    fn a_count_that_brings_less_is_left() {
        let mut g = Gauge::new(START);
        let model = |n: usize| {
            let n = n as f64;
            let rate = if n <= 12.0 {
                n / RTT
            } else {
                12.0 / RTT * 12.0 / n
            };
            (rate, RTT)
        };
        let seen = drive(&mut g, 20, model);
        assert_eq!(&seen[..3], &[12, 18, 12], "{seen:?}");
        // (one step up tried every PROBE_AFTER windows, and left)
        assert!(
            seen[2..].iter().filter(|&&n| n != 12).count() <= 2,
            "{seen:?}"
        );
    }

    /// An error storm (EAGAIN, ETIMEDOUT, EIO...) halves the count, down
    /// to one; answers slower and fewer take a quarter off.
    #[test]
    fn errors_and_slower_answers_back_off() {
        let mut g = Gauge::new(16);
        let storm = Window {
            files: 64,
            secs: 0.1,
            latency: Some(RTT),
            errors: 8,
        };
        g.ended(storm);
        assert_eq!(g.limit(), 8);
        for _ in 0..5 {
            g.ended(storm);
        }
        assert_eq!(g.limit(), FEWEST);
        // settled at 16 with 1 ms answers, then answers 4 ms and fewer files
        let mut g = Gauge::new(16);
        drive(&mut g, 2, |n| (n.min(16) as f64 / RTT, RTT));
        assert_eq!(g.limit(), 16);
        drive(&mut g, 1, |n| (n as f64 / (4.0 * RTT), 4.0 * RTT));
        assert_eq!(g.limit(), 12);
        assert!(is_transient(&io::ErrorKind::WouldBlock.into()));
        assert!(is_transient(&io::ErrorKind::TimedOut.into()));
        assert!(!is_transient(&io::ErrorKind::NotFound.into()));
    }

    /// The crew's count follows the device that handed on files: windows of
    /// them, and the count of opens in flight moves.
    #[test]
    fn files_handed_on_feed_the_count() {
        let s = Storage::new();
        s.seed(3, true);
        assert_eq!(s.opens_at_once(), START);
        for _ in 0..Gauge::new(START).window_files() {
            s.handed(Some(3), None);
        }
        assert_eq!(s.opens_at_once(), 12, "the first window grows it");
        assert_eq!(s.reads_at_once(3), Some(12));
        let eagain = io::Error::from(io::ErrorKind::WouldBlock);
        for _ in 0..Gauge::new(12).window_files() {
            s.handed(None, Some(&eagain));
        }
        assert_eq!(s.opens_at_once(), 6, "a storm halves it");
        assert!(
            s.report("fastsum")
                .contains("settled at 6 (started at 8, 6 to 12 tried)")
        );
    }

    /// The walk's listings follow a network file system's count, within
    /// the walk's own most and never fewer than one; elsewhere the most.
    #[test]
    fn listings_in_flight_follow_the_count_on_a_network_file_system() {
        let s = Storage::new();
        assert_eq!(s.listings_at_once(3, 8), 8, "nothing far: the most");
        assert!(!s.is_remote(3));
        s.seed(3, true);
        assert!(s.is_remote(3));
        assert_eq!(s.listings_at_once(3, 64), START);
        assert_eq!(s.listings_at_once(3, 4), 4, "never more than the most");
        assert_eq!(s.listings_at_once(3, 0), FEWEST, "never fewer than one");
        for _ in 0..Gauge::new(START).window_files() {
            s.handed(Some(3), None);
        }
        assert_eq!(s.listings_at_once(3, 64), 12, "the count grew");
        // (a near device, even judged far by its requests, keeps the most)
        for _ in 0..SLOW_IN_A_ROW {
            s.saw(4, Request::Listing, SLOWER);
        }
        assert!(s.is_far(4));
        assert_eq!(s.listings_at_once(4, 8), 8);
        assert!(!s.is_remote(4));
    }

    /// Every kind has its `--stats` line, stats too; a quick request while
    /// nothing is watched is not counted.
    #[test]
    fn stats_are_timed_as_a_kind_of_their_own() {
        let s = Storage::new();
        s.saw(1, Request::Stat, QUICK);
        assert_eq!(s.requests[Request::Stat as usize].load(Relaxed), 0);
        s.seed(1, true);
        s.saw(1, Request::Stat, SLOWER);
        s.saw(1, Request::Stat, QUICK);
        s.in_flight(Request::Listing, 5);
        let report = s.report("fastsum");
        assert!(
            report.contains(
                "fastsum: stats: stats timed on far storage: 2, 1.00 ms each on average\n"
            ),
            "{report}"
        );
        assert!(
            report.contains(
                "listings timed on far storage: 0, 0.00 ms each on average, up to 5 in flight"
            ),
            "{report}"
        );
    }

    /// A request that waited for a core, not the device, is quick: the
    /// thread's run-queue delay is taken off.
    #[test]
    fn a_busy_cpu_is_not_slow_storage() {
        let ms = Duration::from_millis;
        // 3 ms, of which 2.9 waiting for a core: quick
        let w = on_device(ms(3), Some(ms(10)), ms(10) + Duration::from_micros(2900));
        assert!(w.is_some_and(|w| w < SLOW));
        // 3 ms with no wait for a core: the device
        assert_eq!(on_device(ms(3), Some(ms(10)), ms(10)), Some(ms(3)));
        // the thread's first slow request cannot be told
        assert_eq!(on_device(ms(3), None, ms(10)), None);
        // on Linux the thread's delay is known once asked
        if crate::sys::run_queue_wait().is_some() {
            std::thread::spawn(move || {
                let long_ago = Timer(Instant::now() - ms(5));
                assert_eq!(long_ago.waited(), None);
                let long_ago = Timer(Instant::now() - ms(5));
                assert!(long_ago.waited().is_some());
            })
            .join()
            .unwrap();
        }
    }
}
