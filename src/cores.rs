//! The number of cores this process may run on: the one place that asks.

use std::sync::OnceLock;

/// The number of cores available to this process.
///
/// Read once per process and cached: asking costs system calls (and std's
/// `available_parallelism`, the fallback, opens and reads cgroup files: a
/// tenth of a one-file call's time, docs/BENCHMARKS.md, "One call per
/// file"), while it is wanted for `-j`'s default, by the pipeline, and for
/// every wide update of a mapped BLAKE3 file (one per window). A run does
/// not follow changes to its affinity or quota made while it runs, as it
/// follows none to its other limits.
pub(crate) fn available() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(ask)
}

/// Ask the system: the CPUs this process may run on, one system call; std's
/// `available_parallelism` where that fails (or off Linux); 1 if both fail.
fn ask() -> usize {
    crate::sys::affinity_cpus()
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At least one core, the same answer every time, and the count the
    /// system gives.
    #[test]
    fn the_count_is_the_systems_and_stays() {
        let n = available();
        assert!(n >= 1);
        assert_eq!(available(), n);
        assert_eq!(ask(), n);
    }
}
