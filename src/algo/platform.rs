//! What the CPU offers the kernels, probed in one place (after BLAKE3's
//! `platform.rs`): the instruction-set features the hand-written kernels
//! need, and the lane paths of the multi-message engines (MD5's, SHA's):
//! which exist in this build, which this CPU runs, the best of them, and
//! the environment variable that forces one (`FASTSUM_MD5_LANES`,
//! `FASTSUM_SHA_LANES`), read once per process. The tests test what the
//! CPU runs (`runnable`), never assume it.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::sync::OnceLock;

/// Test-only: the environment variable that makes the probes below take
/// the CPU features it lists (`avx2,avx512f`) as absent, so the tests see
/// what fastsum does on a CPU without them. Read only in a build with the
/// `internals` feature (the tests'): a user's build has no such variable.
#[cfg(all(feature = "internals", target_arch = "x86_64"))]
const HIDE_CPU_ENV: &str = "FASTSUM_TEST_HIDE_CPU";

/// Is `feature` listed in [`HIDE_CPU_ENV`] (read once per process)?
#[cfg(all(feature = "internals", target_arch = "x86_64"))]
fn hidden(feature: &str) -> bool {
    static HIDDEN: OnceLock<Vec<String>> = OnceLock::new();
    HIDDEN
        .get_or_init(|| match std::env::var(HIDE_CPU_ENV) {
            Ok(list) => list.split(',').map(str::to_string).collect(),
            Err(_) => Vec::new(),
        })
        .iter()
        .any(|f| f == feature)
}

/// Without the `internals` feature no feature is hidden.
#[cfg(all(not(feature = "internals"), target_arch = "x86_64"))]
#[inline(always)]
fn hidden(_feature: &str) -> bool {
    false
}

/// Does the CPU have AVX2 (MD5's 8- and 16-lane paths)?
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2() -> bool {
    !hidden("avx2") && std::arch::is_x86_feature_detected!("avx2")
}

/// Does the CPU have AVX-512F (MD5's 16- and 32-lane paths)?
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512f() -> bool {
    !hidden("avx512f") && std::arch::is_x86_feature_detected!("avx512f")
}

/// Does the CPU have AVX-512F and AVX-512BW (SHA's 16-lane kernels)?
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512bw() -> bool {
    avx512f() && !hidden("avx512bw") && std::arch::is_x86_feature_detected!("avx512bw")
}

/// Does the CPU have the SHA-NI kernels' instructions (SHA, SSE4.1,
/// SSSE3)?
pub(crate) fn sha_ni() -> bool {
    #[cfg(target_arch = "x86_64")]
    return !hidden("sha")
        && std::arch::is_x86_feature_detected!("sha")
        && std::arch::is_x86_feature_detected!("sse4.1")
        && std::arch::is_x86_feature_detected!("ssse3");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// The widest carry-less multiplication the CPU has: what the crc-fast
/// crate's CRC kernels (cksum's) run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Clmul {
    /// VPCLMULQDQ on AVX-512F registers.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// VPCLMULQDQ on AVX2 registers.
    #[cfg(target_arch = "x86_64")]
    Vpclmul,
    /// PCLMULQDQ (x86-64).
    #[cfg(target_arch = "x86_64")]
    Pclmul,
    /// PMULL (aarch64).
    #[cfg(target_arch = "aarch64")]
    Pmull,
    /// None: table-driven code.
    None,
}

/// Which [`Clmul`] this CPU has.
pub(crate) fn clmul() -> Clmul {
    #[cfg(target_arch = "x86_64")]
    {
        let vpclmul = std::arch::is_x86_feature_detected!("vpclmulqdq");
        if vpclmul && avx512f() {
            return Clmul::Avx512;
        }
        if vpclmul && avx2() {
            return Clmul::Vpclmul;
        }
        if std::arch::is_x86_feature_detected!("pclmulqdq") {
            return Clmul::Pclmul;
        }
    }
    #[cfg(target_arch = "aarch64")]
    if std::arch::is_aarch64_feature_detected!("pmull") {
        return Clmul::Pmull;
    }
    Clmul::None
}

/// The environment variable that forces an MD5 lane path.
pub(crate) const MD5_LANES_ENV: &str = "FASTSUM_MD5_LANES";

/// The environment variable that forces a SHA lane path.
pub(crate) const SHA_LANES_ENV: &str = "FASTSUM_SHA_LANES";

/// A multi-lane MD5 implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Md5Path {
    /// 32 lanes: two interleaved groups of 16 in zmm registers (AVX-512F).
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// 16 lanes: one group in zmm registers (AVX-512F).
    #[cfg(target_arch = "x86_64")]
    Avx512x16,
    /// 16 lanes: two interleaved groups of 8 in ymm registers (AVX2).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 8 lanes: one group in ymm registers (AVX2).
    #[cfg(target_arch = "x86_64")]
    Avx2x8,
    /// 32 lanes in plain Rust, one after the other: every target; the
    /// tests' reference.
    Scalar,
    /// No lanes: every message through the single-stream kernel.
    Off,
}

impl Md5Path {
    /// The name `FASTSUM_MD5_LANES` takes and `--stats` prints.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx512 => "avx512",
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx512x16 => "avx512-16",
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx2x8 => "avx2-8",
            Md5Path::Scalar => "scalar",
            Md5Path::Off => "off",
        }
    }

    /// The CPU feature the path needs (`None`: runs everywhere).
    #[cfg(any(test, feature = "internals"))]
    pub fn cpu_feature(self) -> Option<&'static str> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx512 | Md5Path::Avx512x16 => Some("avx512f"),
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx2 | Md5Path::Avx2x8 => Some("avx2"),
            Md5Path::Scalar | Md5Path::Off => None,
        }
    }

    /// Whether this CPU can run the path.
    pub fn is_available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx512 | Md5Path::Avx512x16 => avx512f(),
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx2 | Md5Path::Avx2x8 => avx2(),
            Md5Path::Scalar | Md5Path::Off => true,
        }
    }

    /// Every path this build knows, fastest first.
    pub fn all() -> Vec<Md5Path> {
        vec![
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx512,
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx512x16,
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx2,
            #[cfg(target_arch = "x86_64")]
            Md5Path::Avx2x8,
            Md5Path::Scalar,
            Md5Path::Off,
        ]
    }

    /// Every path this CPU runs, in `all`'s order.
    pub fn available() -> Vec<Md5Path> {
        Md5Path::all()
            .into_iter()
            .filter(|p| p.is_available())
            .collect()
    }

    /// The fastest path this CPU runs. Never `Scalar`: the portable lanes
    /// are the reference for the tests, and slower than the single-stream
    /// kernel (examples/md5_lanes.rs).
    pub fn best() -> Md5Path {
        Md5Path::available()
            .into_iter()
            .find(|&p| p != Md5Path::Scalar)
            .unwrap_or(Md5Path::Off)
    }

    /// The path `FASTSUM_MD5_LANES` asks for: `None` when unset, empty or
    /// `auto`; an error when the value names no path or one this CPU cannot
    /// run.
    pub fn from_env_value(
        value: Option<&std::ffi::OsStr>,
    ) -> Result<Option<Md5Path>, EnvError<Md5Path>> {
        from_env_value(value)
    }

    /// The path every `Engine::selected()` uses: `FASTSUM_MD5_LANES` if it
    /// names one, else the best. An invalid value falls back to the best
    /// here; `check_env` reports it for the CLI to print.
    pub fn selected() -> Md5Path {
        match Md5Path::from_env_once() {
            Ok(Some(p)) => *p,
            Ok(None) | Err(_) => Md5Path::best(),
        }
    }

    /// Validate `FASTSUM_MD5_LANES`, for the CLI to report a bad value.
    pub fn check_env() -> Result<(), EnvError<Md5Path>> {
        Md5Path::from_env_once().clone().map(|_| ())
    }

    /// `FASTSUM_MD5_LANES`, read and parsed once per process.
    fn from_env_once() -> &'static Result<Option<Md5Path>, EnvError<Md5Path>> {
        static PARSED: OnceLock<Result<Option<Md5Path>, EnvError<Md5Path>>> = OnceLock::new();
        PARSED.get_or_init(|| Md5Path::from_env_value(std::env::var_os(MD5_LANES_ENV).as_deref()))
    }
}

impl CpuPath for Md5Path {
    const ENV: &'static str = MD5_LANES_ENV;
    const WHAT: &'static str = "MD5";
    fn name(self) -> &'static str {
        Md5Path::name(self)
    }
    fn all() -> Vec<Md5Path> {
        Md5Path::all()
    }
    fn available() -> Vec<Md5Path> {
        Md5Path::available()
    }
    fn is_available(self) -> bool {
        Md5Path::is_available(self)
    }
    #[cfg(any(test, feature = "internals"))]
    fn cpu_feature(self) -> Option<&'static str> {
        Md5Path::cpu_feature(self)
    }
}

/// A multi-message SHA implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaPath {
    /// Sixteen messages, one per lane of AVX-512 registers, when sixteen
    /// are in flight; fewer as `ShaNi4` (or one by one through the crates
    /// on a CPU without SHA-NI).
    #[cfg(target_arch = "x86_64")]
    Avx512x16,
    /// Four messages interleaved in one SHA-NI loop.
    #[cfg(target_arch = "x86_64")]
    ShaNi4,
    /// Two messages interleaved in one SHA-NI loop.
    #[cfg(target_arch = "x86_64")]
    ShaNi2,
    /// One message at a time, fastsum's SHA-NI kernel (for comparison).
    #[cfg(target_arch = "x86_64")]
    ShaNi1,
    /// One message at a time through the sha1/sha2 crates: every CPU.
    Off,
}

impl ShaPath {
    /// The name `FASTSUM_SHA_LANES` takes.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            ShaPath::Avx512x16 => "avx512-16",
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi4 => "sha-ni-4",
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi2 => "sha-ni-2",
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi1 => "sha-ni-1",
            ShaPath::Off => "off",
        }
    }

    /// The CPU feature the path needs (`None`: runs everywhere).
    #[cfg(any(test, feature = "internals"))]
    pub fn cpu_feature(self) -> Option<&'static str> {
        match self {
            #[cfg(target_arch = "x86_64")]
            ShaPath::Avx512x16 => Some("avx512bw"),
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi4 | ShaPath::ShaNi2 | ShaPath::ShaNi1 => Some("sha"),
            ShaPath::Off => None,
        }
    }

    /// Whether this CPU can run the path.
    pub fn is_available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            ShaPath::Avx512x16 => avx512bw(),
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi4 | ShaPath::ShaNi2 | ShaPath::ShaNi1 => sha_ni(),
            ShaPath::Off => true,
        }
    }

    /// Every path this build knows, widest first.
    pub fn all() -> Vec<ShaPath> {
        vec![
            #[cfg(target_arch = "x86_64")]
            ShaPath::Avx512x16,
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi4,
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi2,
            #[cfg(target_arch = "x86_64")]
            ShaPath::ShaNi1,
            ShaPath::Off,
        ]
    }

    /// Every path this CPU runs, in `all`'s order.
    pub fn available() -> Vec<ShaPath> {
        ShaPath::all()
            .into_iter()
            .filter(|p| p.is_available())
            .collect()
    }

    /// The fastest path this CPU runs: sixteen AVX-512 lanes (four SHA-NI
    /// messages below sixteen in flight) where AVX-512BW is, else four
    /// messages per SHA-NI loop (examples/sha_lanes.rs measures each path
    /// against one stream: docs/BENCHMARKS.md, "SHA-1/SHA-256 across
    /// files").
    pub fn best() -> ShaPath {
        #[cfg(target_arch = "x86_64")]
        for p in [ShaPath::Avx512x16, ShaPath::ShaNi4] {
            if p.is_available() {
                return p;
            }
        }
        ShaPath::Off
    }

    /// The path `FASTSUM_SHA_LANES` asks for: `None` when unset, empty or
    /// `auto`.
    pub fn from_env_value(
        value: Option<&std::ffi::OsStr>,
    ) -> Result<Option<ShaPath>, EnvError<ShaPath>> {
        from_env_value(value)
    }

    /// The path `Engine::selected()` uses: `FASTSUM_SHA_LANES` if it names
    /// one, else the best. An invalid value falls back to the best here;
    /// `check_env` reports it for the CLI to print.
    pub fn selected() -> ShaPath {
        match ShaPath::from_env_once() {
            Ok(Some(p)) => *p,
            Ok(None) | Err(_) => ShaPath::best(),
        }
    }

    /// Validate `FASTSUM_SHA_LANES`, for the CLI to report a bad value.
    pub fn check_env() -> Result<(), EnvError<ShaPath>> {
        ShaPath::from_env_once().clone().map(|_| ())
    }

    /// `FASTSUM_SHA_LANES`, read and parsed once per process.
    fn from_env_once() -> &'static Result<Option<ShaPath>, EnvError<ShaPath>> {
        static PARSED: OnceLock<Result<Option<ShaPath>, EnvError<ShaPath>>> = OnceLock::new();
        PARSED.get_or_init(|| ShaPath::from_env_value(std::env::var_os(SHA_LANES_ENV).as_deref()))
    }
}

impl CpuPath for ShaPath {
    const ENV: &'static str = SHA_LANES_ENV;
    const WHAT: &'static str = "SHA";
    fn name(self) -> &'static str {
        ShaPath::name(self)
    }
    fn all() -> Vec<ShaPath> {
        ShaPath::all()
    }
    fn available() -> Vec<ShaPath> {
        ShaPath::available()
    }
    fn is_available(self) -> bool {
        ShaPath::is_available(self)
    }
    #[cfg(any(test, feature = "internals"))]
    fn cpu_feature(self) -> Option<&'static str> {
        ShaPath::cpu_feature(self)
    }
}

/// A set of kernels for one hash, of which the CPU runs some.
pub trait CpuPath: Copy + fmt::Debug + 'static {
    /// The environment variable that forces a path.
    const ENV: &'static str;
    /// What the paths hash, for messages (`MD5`, `SHA`).
    const WHAT: &'static str;
    /// The name the variable takes.
    fn name(self) -> &'static str;
    /// Every path this build has.
    fn all() -> Vec<Self>;
    /// The paths this CPU runs.
    fn available() -> Vec<Self>;
    /// Does this CPU run it?
    fn is_available(self) -> bool;
    /// The CPU feature it needs, if any (for the tests' skip lines).
    #[cfg(any(test, feature = "internals"))]
    fn cpu_feature(self) -> Option<&'static str>;
}

/// The paths this CPU runs; each one it cannot run is named on stderr with
/// the feature it lacks (the tests test what the CPU runs, never assume).
#[cfg(test)]
pub(crate) fn runnable<P: CpuPath>() -> Vec<P> {
    P::all()
        .into_iter()
        .filter(|&p| {
            if !p.is_available() {
                eprintln!(
                    "skipped {} lane path {}: this CPU lacks {}",
                    P::WHAT,
                    p.name(),
                    p.cpu_feature().unwrap_or("it")
                );
            }
            p.is_available()
        })
        .collect()
}

/// A value of a path variable that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvError<P> {
    /// It names no path.
    Unknown(OsString),
    /// It names a path this CPU cannot run.
    Unavailable(P),
}

impl<P: CpuPath> fmt::Display for EnvError<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |paths: Vec<P>| {
            paths
                .into_iter()
                .map(P::name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            EnvError::Unknown(value) => write!(
                f,
                "invalid {} value {value:?}: expected auto, {}",
                P::ENV,
                names(P::all())
            ),
            EnvError::Unavailable(path) => write!(
                f,
                "{}={}: this CPU cannot run that {} path (it can run: {})",
                P::ENV,
                path.name(),
                P::WHAT,
                names(P::available())
            ),
        }
    }
}

impl<P: CpuPath> std::error::Error for EnvError<P> {}

/// The path a value of `P::ENV` asks for: `None` when unset, empty or
/// `auto`; an error when it names no path or one this CPU cannot run.
pub(crate) fn from_env_value<P: CpuPath>(value: Option<&OsStr>) -> Result<Option<P>, EnvError<P>> {
    let Some(value) = value else { return Ok(None) };
    let text = value.to_str();
    if matches!(text, Some("" | "auto")) {
        return Ok(None);
    }
    let Some(path) = P::all().into_iter().find(|p| Some(p.name()) == text) else {
        return Err(EnvError::Unknown(value.to_os_string()));
    };
    if !path.is_available() {
        return Err(EnvError::Unavailable(path));
    }
    Ok(Some(path))
}
