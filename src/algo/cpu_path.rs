//! What the SIMD path enums of the multi-message engines share (MD5 lanes,
//! SHA lanes): reading the environment variable that forces a path, and
//! its error. Each enum keeps its own parsed value (a `OnceLock` per type:
//! a static inside a generic function would be one for every type).

use std::ffi::{OsStr, OsString};
use std::fmt;

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
