//! The integration tests: one binary, themed modules (as ripgrep does), so
//! the suite links once.

// Tests may unwrap: a failure is a test failure.
#![allow(clippy::unwrap_used)]

mod util;

mod architecture;
mod audit;
mod changed;
mod check;
mod cksum_sum;
mod cli;
mod cloud;
mod copiers;
mod dialects;
mod errors;
mod family;
mod faults;
mod getopt;
mod hash;
mod jobs;
mod json;
mod lanes;
mod limits;
mod man;
mod md5_kernel;
mod meta;
mod mmap;
mod multi;
mod multicall;
mod offset;
mod procfs;
mod progress;
mod published;
mod readme;
mod shards;
mod signed;
mod skips;
mod slowfs;
mod sshfs;
mod startup;
mod stats;
mod update;
mod walk;
mod windows;
mod xxhsum;
