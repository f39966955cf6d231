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
//!   (`fastsum: NAME: file truncated while mapped`) instead of a digest; the
//!   other inputs are hashed as usual and the exit status is 1.
//! * anywhere else: the fault is not ours. The handler puts back the action
//!   that was there before (std's stack-overflow handler, or the default)
//!   and returns, so the fault repeats and that action deals with it.
//!
//! The registry is a fixed array of slots of atomics (no allocation, no lock:
//! the handler may only touch async-signal-safe things); a mapping that finds
//! no free slot is not made, and the input is read instead. The handler
//! calls only `mmap` and `sigaction` (raw system calls under glibc) and
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

/// The SIGBUS action found at installation, put back for faults not ours;
/// `None` inside when installing failed (then nothing is ever mapped).
static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

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
    if PREVIOUS.get_or_init(install).is_none() {
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

/// Install the handler; the previous action, or `None` on failure.
fn install() -> Option<libc::sigaction> {
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
    // SAFETY: zeroed as above; sigaction fills it in.
    let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; the handler only does
    // async-signal-safe work (see the module comment).
    let rc = unsafe {
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, &mut previous)
    };
    (rc == 0).then_some(previous)
}

extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
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
            return;
        }
        break;
    }
    // Not ours (or not recoverable): hand the fault back to what was there.
    if let Some(Some(previous)) = PREVIOUS.get() {
        // SAFETY: `previous` came from sigaction itself.
        unsafe { libc::sigaction(libc::SIGBUS, previous, ptr::null_mut()) };
    } else {
        // SAFETY: restoring the default action is always valid.
        unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
    }
}
