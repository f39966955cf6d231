//! `--stats`: counters shared by the reading threads, reported on stderr
//! after the run so stdout stays byte-identical.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use crate::algo::md5::lanes::LaneStats;
use crate::algo::sha::lanes::LaneStats as ShaLaneStats;

/// Counters updated with relaxed atomics (they are only read at the end, or
/// approximately by the progress display).
#[derive(Debug, Default)]
pub struct Stats {
    bytes: AtomicU64,
    files: AtomicU64,
    read_calls: AtomicU64,
    hasher_wait_ns: AtomicU64,
    reader_wait_ns: AtomicU64,
    reader_hashed_ns: AtomicU64,
    reader_batches: AtomicU64,
    lane_calls: AtomicU64,
    lane_blocks: AtomicU64,
    lane_single_blocks: AtomicU64,
    /// SHA blocks hashed 16, 4, 2 and 1 message(s) per kernel call.
    sha_blocks: [AtomicU64; 4],
    /// Small files handed to the far readers, and how many of those ran.
    far_files: AtomicU64,
    far_readers: AtomicU64,
    /// Parts of inputs hashed side by side (`read::parts`), and the
    /// groups of lanes they were hashed in.
    lane_parts: AtomicU64,
    lane_groups: AtomicU64,
    /// Files read in ranges several at once (`read::ranges`), the ranges
    /// read, their total time and the most in flight at once.
    ranged_files: AtomicU64,
    ranges: AtomicU64,
    range_ns: AtomicU64,
    ranges_at_once: AtomicU64,
    /// Files in the page cache copied by several readers at once
    /// (`read::ranges`, its copiers), and the most readers one had.
    copied_files: AtomicU64,
    copiers: AtomicU64,
    /// Reads that waited on the storage (`read::SLOW_READ` or more) and
    /// their total time.
    slow_reads: AtomicU64,
    slow_read_ns: AtomicU64,
    /// Inputs whose outcome reached the printer (hashed or failed), and
    /// what the run will do, once known: the progress display's counts.
    inputs_done: AtomicU64,
    planned: Arc<Planned>,
}

/// What a run will do, once known (the progress display's totals), shared
/// with the thread that works it out; each count plus one (0: not known).
#[derive(Debug, Default)]
pub(crate) struct Planned {
    /// A display runs that would show it.
    pub(crate) wanted: AtomicBool,
    inputs: AtomicU64,
    bytes: AtomicU64,
}

impl Planned {
    /// The run will have `inputs` inputs (and read `bytes`, if known).
    pub(crate) fn set(&self, inputs: u64, bytes: Option<u64>) {
        self.inputs.store(inputs.saturating_add(1), Relaxed);
        if let Some(bytes) = bytes {
            self.bytes.store(bytes.saturating_add(1), Relaxed);
        }
    }
    /// The inputs the run will have, and the bytes it will read, as far as
    /// known.
    pub(crate) fn get(&self) -> (Option<u64>, Option<u64>) {
        let known = |n: &AtomicU64| n.load(Relaxed).checked_sub(1);
        (known(&self.inputs), known(&self.bytes))
    }
}

impl Stats {
    /// Count bytes fed to a hash.
    pub(crate) fn add_bytes(&self, n: usize) {
        self.bytes.fetch_add(n as u64, Relaxed);
    }
    /// Count one input hashed to the end.
    pub(crate) fn add_file(&self) {
        self.files.fetch_add(1, Relaxed);
    }
    /// Count one `read` system call.
    pub(crate) fn add_read_call(&self) {
        self.read_calls.fetch_add(1, Relaxed);
    }
    /// Time a hasher spent waiting for a block from the reader.
    pub(crate) fn add_hasher_wait(&self, d: Duration) {
        self.hasher_wait_ns.fetch_add(d.as_nanos() as u64, Relaxed);
    }
    /// Time the reader spent waiting for a free block from the pool.
    pub(crate) fn add_reader_wait(&self, d: Duration) {
        self.reader_wait_ns.fetch_add(d.as_nanos() as u64, Relaxed);
    }
    /// Time the reader spent hashing a batch itself while it waited for a
    /// block (part of its wait).
    pub(crate) fn add_reader_hashed(&self, d: Duration) {
        self.reader_hashed_ns
            .fetch_add(d.as_nanos() as u64, Relaxed);
        self.reader_batches.fetch_add(1, Relaxed);
    }
    /// Count one small file handed to the far readers.
    pub(crate) fn add_far_file(&self) {
        self.far_files.fetch_add(1, Relaxed);
    }
    /// Count one file read in ranges several at once.
    pub(crate) fn add_ranged_file(&self) {
        self.ranged_files.fetch_add(1, Relaxed);
    }
    /// Count one file copied out of the page cache by `readers` at once.
    pub(crate) fn add_copied_file(&self, readers: usize) {
        self.copied_files.fetch_add(1, Relaxed);
        self.copiers.fetch_max(readers as u64, Relaxed);
    }
    /// Count one range read, which took `d`.
    pub(crate) fn add_range(&self, d: Duration) {
        self.ranges.fetch_add(1, Relaxed);
        self.range_ns.fetch_add(d.as_nanos() as u64, Relaxed);
    }
    /// `n` ranges are in flight now.
    pub(crate) fn note_ranges(&self, n: usize) {
        self.ranges_at_once.fetch_max(n as u64, Relaxed);
    }
    /// Count one read call that waited on the storage, for `d`.
    pub(crate) fn add_slow_read(&self, d: Duration) {
        self.slow_reads.fetch_add(1, Relaxed);
        self.slow_read_ns.fetch_add(d.as_nanos() as u64, Relaxed);
    }
    /// Count a group of `parts` parts of one input hashed side by side.
    pub(crate) fn add_lane_group(&self, parts: usize) {
        self.lane_parts.fetch_add(parts as u64, Relaxed);
        self.lane_groups.fetch_add(1, Relaxed);
    }
    /// Count one far reader started.
    pub(crate) fn add_far_reader(&self) {
        self.far_readers.fetch_add(1, Relaxed);
    }
    /// Count the multi-lane MD5 work done between two snapshots of an
    /// engine's counters.
    pub(crate) fn add_lanes(&self, now: LaneStats, before: LaneStats) {
        self.lane_calls.fetch_add(now.calls - before.calls, Relaxed);
        self.lane_blocks
            .fetch_add(now.lane_blocks - before.lane_blocks, Relaxed);
        self.lane_single_blocks
            .fetch_add(now.single_blocks - before.single_blocks, Relaxed);
    }

    /// Count the multi-message SHA work done between two snapshots of an
    /// engine's counters.
    pub(crate) fn add_sha_lanes(&self, now: ShaLaneStats, before: ShaLaneStats) {
        let widths = [
            (now.blocks16, before.blocks16),
            (now.blocks4, before.blocks4),
            (now.blocks2, before.blocks2),
            (now.blocks1, before.blocks1),
        ];
        for (counter, (n, b)) in self.sha_blocks.iter().zip(widths) {
            counter.fetch_add(n - b, Relaxed);
        }
    }

    /// Count one input whose outcome reached the printer.
    pub(crate) fn add_input_done(&self) {
        self.inputs_done.fetch_add(1, Relaxed);
    }
    /// Inputs whose outcome reached the printer so far.
    pub(crate) fn inputs_done(&self) -> u64 {
        self.inputs_done.load(Relaxed)
    }
    /// What the run will do, once known.
    pub(crate) fn planned(&self) -> &Arc<Planned> {
        &self.planned
    }
    /// Bytes hashed so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Relaxed)
    }
    /// Read calls so far.
    pub fn read_calls(&self) -> u64 {
        self.read_calls.load(Relaxed)
    }

    /// The report printed by `--stats`, one `name: value` per line.
    pub(crate) fn report(
        &self,
        program: &str,
        wall: Duration,
        threaded: bool,
        md5: bool,
        sha: bool,
    ) -> String {
        let mut s = self.totals(program, wall);
        if threaded {
            s.push_str(&self.pipeline_lines(program));
        }
        s.push_str(&self.slow_storage_lines(program));
        let copied = self.copied_files.load(Relaxed);
        if copied > 0 {
            s.push_str(&format!(
                "{program}: stats: files copied by several readers at once (page cache): \
                 {copied}, up to {} readers\n",
                self.copiers.load(Relaxed),
            ));
        }
        let parts = self.lane_parts.load(Relaxed);
        if parts > 0 {
            s.push_str(&format!(
                "{program}: stats: parts hashed side by side: {parts} in {} groups of lanes\n",
                self.lane_groups.load(Relaxed),
            ));
        }
        if md5 {
            s.push_str(&self.md5_lines(program));
        }
        if sha {
            s.push_str(&self.sha_lines(program));
        }
        s
    }

    /// What every run reports: files, bytes, time, throughput, read calls.
    fn totals(&self, program: &str, wall: Duration) -> String {
        let bytes = self.bytes();
        let secs = wall.as_secs_f64();
        let mib_s = if secs > 0.0 {
            bytes as f64 / secs / (1024.0 * 1024.0)
        } else {
            0.0
        };
        format!(
            "{program}: stats: files hashed: {}\n\
             {program}: stats: bytes hashed: {bytes}\n\
             {program}: stats: wall time: {:.3} s\n\
             {program}: stats: throughput: {mib_s:.1} MiB/s\n\
             {program}: stats: read calls: {}\n",
            self.files.load(Relaxed),
            secs,
            self.read_calls(),
        )
    }

    /// The threaded mode's waits, the reader's own hashing, and the far
    /// readers when any ran.
    fn pipeline_lines(&self, program: &str) -> String {
        let ms = |ns: &AtomicU64| ns.load(Relaxed) as f64 / 1e6;
        let mut s = format!(
            "{program}: stats: hasher waited for data: {:.1} ms\n\
             {program}: stats: reader waited for a free buffer: {:.1} ms\n\
             {program}: stats: batches the reader hashed while it waited: {}\n\
             {program}: stats: reader hashing while it waited: {:.1} ms\n",
            ms(&self.hasher_wait_ns),
            ms(&self.reader_wait_ns),
            self.reader_batches.load(Relaxed),
            ms(&self.reader_hashed_ns),
        );
        let far = self.far_files.load(Relaxed);
        if far > 0 {
            s.push_str(&format!(
                "{program}: stats: small files read far (slow storage): {far} by {} readers\n",
                self.far_readers.load(Relaxed),
            ));
        }
        s
    }

    /// Reads that waited on the storage, and files read in ranges at once,
    /// when there were any.
    fn slow_storage_lines(&self, program: &str) -> String {
        let mean_ms = |n: u64, ns: &AtomicU64| ns.load(Relaxed) as f64 / 1e6 / n.max(1) as f64;
        let mut s = crate::storage::observer().report(program);
        let slow = self.slow_reads.load(Relaxed);
        if slow > 0 {
            s.push_str(&format!(
                "{program}: stats: reads that waited on the storage: {slow}, {:.2} ms each on average\n",
                mean_ms(slow, &self.slow_read_ns),
            ));
        }
        let ranged = self.ranged_files.load(Relaxed);
        if ranged > 0 {
            let ranges = self.ranges.load(Relaxed);
            s.push_str(&format!(
                "{program}: stats: files read in ranges at once (slow storage): {ranged}, \
                 {ranges} ranges, up to {} in flight, {:.2} ms each on average\n",
                self.ranges_at_once.load(Relaxed),
                mean_ms(ranges, &self.range_ns),
            ));
        }
        s
    }

    /// MD5's kernels and how full its lanes ran.
    fn md5_lines(&self, program: &str) -> String {
        let calls = self.lane_calls.load(Relaxed);
        let occupancy = if calls > 0 {
            self.lane_blocks.load(Relaxed) as f64 / calls as f64
        } else {
            0.0
        };
        format!(
            "{program}: stats: md5 kernels: {} lanes, {} single-stream\n\
             {program}: stats: md5 lane calls: {calls}, {occupancy:.1} busy lanes per call, \
             {} blocks single-stream\n",
            crate::algo::md5::lanes::path_name(),
            crate::algo::md5::Kernel::selected().name(),
            self.lane_single_blocks.load(Relaxed),
        )
    }

    /// SHA-1/SHA-256's lane path and how its blocks were hashed.
    fn sha_lines(&self, program: &str) -> String {
        let [b16, b4, b2, b1] = self.sha_blocks.each_ref().map(|b| b.load(Relaxed));
        let all = (b16 + b4 + b2 + b1).max(1) as f64;
        let share = |n: u64| 100.0 * n as f64 / all;
        format!(
            "{program}: stats: sha kernels: {} lanes\n{program}: stats: sha blocks: \
             {b16} in 16 lanes ({:.0} %), {b4} 4 at a time ({:.0} %), {b2} 2 at a time \
             ({:.0} %), {b1} one at a time ({:.0} %)\n",
            crate::algo::sha::lanes::Path::selected().name(),
            share(b16),
            share(b4),
            share(b2),
            share(b1),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_has_every_counter() {
        let s = Stats::default();
        s.add_bytes(1 << 20);
        s.add_read_call();
        s.add_file();
        s.add_hasher_wait(Duration::from_millis(3));
        let r = s.report("fastsum", Duration::from_secs(1), true, false, false);
        assert!(r.contains("bytes hashed: 1048576\n"), "{r}");
        assert!(r.contains("throughput: 1.0 MiB/s\n"), "{r}");
        assert!(r.contains("read calls: 1\n"), "{r}");
        assert!(r.contains("hasher waited for data: 3.0 ms\n"), "{r}");
        assert!(r.contains("reader waited for a free buffer"), "{r}");
        assert!(!r.contains("copied by several readers"), "{r}");
        s.add_copied_file(2);
        let r = s.report("fastsum", Duration::from_secs(1), false, false, false);
        assert!(
            r.contains(
                "files copied by several readers at once (page cache): 1, up to 2 readers\n"
            ),
            "{r}"
        );
        let sync = s.report("fastsum", Duration::from_secs(1), false, false, false);
        assert!(!sync.contains("hasher waited"), "{sync}");
    }
}
