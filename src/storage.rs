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
//! [`FAST_IN_A_ROW`] quick ones in a row make it near again. A busy CPU is
//! not slow storage: the time a request's thread waited for a core (its
//! run-queue delay, [`crate::sys::run_queue_wait`]) is taken off what the
//! request cost before it is judged ([`Timer`]).

use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// A request that waited on the device this long was a round trip, not
/// the page cache's answer (which takes microseconds).
pub(crate) const SLOW: Duration = Duration::from_micros(250);

/// This many slow requests in a row make a device far.
const SLOW_IN_A_ROW: u32 = 4;

/// This many quick requests in a row make a device near again (a network
/// file system answering from its caches, or a fast local server).
const FAST_IN_A_ROW: u32 = 64;

/// The most reads in flight on a network or FUSE file system
/// ([`Storage::reads_at_once`]): as many as the crew's opens.
const REMOTE_READS: usize = 16;

/// What a request asked of the storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Request {
    /// Opening a file (with its `fstat`).
    Open,
    /// A file's first read.
    Read,
    /// Listing a directory (the walk).
    Listing,
}

/// What the run knows of one device.
#[derive(Debug)]
struct Device {
    dev: u64,
    /// Its file system is a network or FUSE one (the seed).
    remote: bool,
    far: bool,
    slow: u32,
    fast: u32,
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
    /// Requests seen by kind (open, read, listing), and how long they
    /// waited on the device in all, for `--stats`.
    requests: [AtomicU64; 3],
    waited_ns: [AtomicU64; 3],
    /// The most requests of each kind in flight at once, where a crew
    /// keeps several (0: one at a time).
    at_once: [AtomicU64; 3],
    /// Some device was judged far at some point of the run.
    was_far: AtomicBool,
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
            requests: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
            waited_ns: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
            at_once: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
            was_far: AtomicBool::new(false),
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
    /// (None: cannot tell, the thread's first slow request).
    pub(crate) fn saw(&self, dev: u64, kind: Request, waited: Option<Duration>) {
        let Some(waited) = waited else { return };
        let k = kind as usize;
        self.requests[k].fetch_add(1, Relaxed);
        let ns = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
        self.waited_ns[k].fetch_add(ns, Relaxed);
        let slow = waited >= SLOW;
        if !slow && !self.watched.load(Relaxed) {
            return;
        }
        self.with(dev, |d| {
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
    /// cache and its own request queue (FUSE sends 12 in the background,
    /// and past 9 drops the kernel's read-ahead, so that each page becomes
    /// a request of its own): through sshfs at a 1 ms round trip, 64 far
    /// readers took 2.3-3.0 s over 1,000 small files where 8-16 took
    /// 0.9-1.3 s (docs/BENCHMARKS.md, issue 41). None: as many as pay.
    pub(crate) fn reads_at_once(&self, dev: u64) -> Option<usize> {
        let remote = self.any_far.load(Relaxed) && self.with(dev, |d| d.remote);
        remote.then_some(REMOTE_READS)
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
        for (k, kind) in ["opens", "reads", "listings"].iter().enumerate() {
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
        assert_eq!(s.reads_at_once(7), Some(REMOTE_READS));
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
