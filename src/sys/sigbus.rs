//! Surviving SIGBUS on a memory-mapped input that shrinks under us.
//!
//! Reading a page of a file mapping that lies past the file's current end
//! (someone truncated the file after we mapped it) raises SIGBUS, whose
//! default action kills the process with no message. `mmap` mode must not
//! die that way, so while a mapping is hashed it is registered here, and a
//! SIGBUS handler looks the faulting address up:
//!
//! * inside a registered mapping: the handler maps anonymous zero pages over
//!   the rest of that mapping (so the faulting read, retried on return, goes
//!   on with zeros), marks the mapping as faulted and returns. The owner
//!   checks the mark once hashing is done and reports the input as an error
//!   (`fastsum: NAME: file changed as we read it`) instead of a digest; the
//!   other inputs are hashed as usual and the exit status is 1.
//! * anything else is not ours and kills the process at once, as it kills
//!   GNU md5sum: a SIGBUS sent by a process (`kill -BUS`, `sigqueue`,
//!   `tgkill`: `si_code` ≤ 0), or a fault outside every registered mapping.
//!   The handler restores the default action and re-raises the signal; it
//!   is delivered (and kills) as soon as the handler returns. Merely
//!   restoring the action and returning, as std's own handler does, would
//!   ignore one signal sent with `kill`.
//!
//! The handler is installed at start-up ([`install`], called from
//! `crate::run`) in every mode, so that it, not std's stack-overflow
//! handler, answers an external SIGBUS.
//!
//! The registry is a fixed array of slots of atomics (no allocation, no lock:
//! the handler may only touch async-signal-safe things); a mapping that finds
//! no free slot is not made, and the input is read instead. The handler
//! calls only `mmap`, `sigaction` and `raise` (async-signal-safe) and
//! atomics. Rayon threads hashing a BLAKE3 mapping are covered too: the
//! lookup is by address, not by thread.

use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// How many mappings may be registered at once: more than any sensible
/// `-j`; past it, inputs are read instead of mapped.
const SLOTS: usize = 64;

const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const ACTIVE: u8 = 2;

#[derive(Debug)]
struct Slot {
    state: AtomicU8,
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

static REGISTRY: [Slot; SLOTS] = [const {
    Slot {
        state: AtomicU8::new(FREE),
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        faulted: AtomicBool::new(false),
    }
}; SLOTS];

static PAGE_SIZE: AtomicUsize = AtomicUsize::new(4096);

/// Whether the handler is installed (`false` when `sigaction` failed: then
/// nothing is ever mapped).
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// A registered mapping; dropping it unregisters the mapping, which must
/// happen before the mapping is unmapped (declare it before the `Mmap`).
#[derive(Debug)]
pub(crate) struct Guard {
    slot: &'static Slot,
}

impl Guard {
    /// Did reading the mapping fault (the file shrank) since registration?
    pub(crate) fn faulted(&self) -> bool {
        self.slot.faulted.load(Ordering::SeqCst)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.slot.state.store(FREE, Ordering::SeqCst);
    }
}

/// A free slot, with the handler installed; `None` when the handler could
/// not be installed or every slot is taken. Fill it with [`Claim::activate`]
/// once the mapping exists.
pub(crate) fn claim() -> Option<Claim> {
    if !install() {
        return None;
    }
    let slot = REGISTRY.iter().find(|s| {
        s.state
            .compare_exchange(FREE, CLAIMED, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok()
    })?;
    Some(Claim { slot })
}

/// A slot taken but not yet watching a mapping.
#[derive(Debug)]
pub(crate) struct Claim {
    slot: &'static Slot,
}

impl Claim {
    /// Watch `len` bytes from `start`.
    pub(crate) fn activate(self, start: *const u8, len: usize) -> Guard {
        let slot = self.slot;
        std::mem::forget(self);
        slot.start.store(start as usize, Ordering::SeqCst);
        slot.len.store(len, Ordering::SeqCst);
        slot.faulted.store(false, Ordering::SeqCst);
        slot.state.store(ACTIVE, Ordering::SeqCst);
        Guard { slot }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        self.slot.state.store(FREE, Ordering::SeqCst);
    }
}

/// The page size (read when the handler is installed, before any mapping).
pub(crate) fn page_size() -> usize {
    PAGE_SIZE.load(Ordering::SeqCst)
}

/// Install the handler (once; later calls only report the outcome).
/// Returns whether it is installed.
pub(crate) fn install() -> bool {
    *INSTALLED.get_or_init(install_now)
}

fn install_now() -> bool {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if let Ok(page) = usize::try_from(page)
        && page.is_power_of_two()
    {
        PAGE_SIZE.store(page, Ordering::SeqCst);
    }
    // SAFETY: an all-zero sigaction is a valid value (empty mask, no flags),
    // and the fields are set below before use.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_sigbus as *const () as usize;
    action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
    // SAFETY: the pointer is valid for the call; the handler only does
    // async-signal-safe work (see the module comment).
    let rc = unsafe {
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, ptr::null_mut())
    };
    rc == 0
}

extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    // si_code > 0: a fault the kernel raised (BUS_ADRERR, …); ≤ 0: a signal
    // some process sent, whose si_addr means nothing
    if code > 0 && recover(addr) {
        return;
    }
    die();
}

/// If `addr` lies in a registered mapping, map zero pages over the rest of
/// it, mark it faulted and return true.
fn recover(addr: usize) -> bool {
    let page = PAGE_SIZE.load(Ordering::SeqCst);
    for slot in &REGISTRY {
        if slot.state.load(Ordering::SeqCst) != ACTIVE {
            continue;
        }
        let start = slot.start.load(Ordering::SeqCst);
        let len = slot.len.load(Ordering::SeqCst);
        if addr < start || addr - start >= len {
            continue;
        }
        let from = addr & !(page - 1);
        let end = (start + len).next_multiple_of(page);
        // SAFETY: [from, end) lies within the pages of a live mapping owned
        // by this process (its owner unregisters before unmapping), so
        // replacing them affects nothing else.
        let r = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if r != libc::MAP_FAILED {
            slot.faulted.store(true, Ordering::SeqCst);
            return true;
        }
        return false;
    }
    false
}

/// Die of SIGBUS with the default action (terminate, core dump), from
/// inside the handler: only async-signal-safe calls (sigaction, raise).
fn die() {
    // SAFETY: an all-zero sigaction with SIG_DFL (0) as its handler is the
    // default action; the pointers are valid for the calls.
    unsafe {
        let mut dfl: libc::sigaction = std::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut dfl.sa_mask);
        libc::sigaction(libc::SIGBUS, &dfl, ptr::null_mut());
        // SIGBUS is blocked while its handler runs: the raised signal stays
        // pending and is delivered, with the default action, on return
        libc::raise(libc::SIGBUS);
    }
}
