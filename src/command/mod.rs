//! The commands: each takes the run's [`Context`](crate::config::Context),
//! its options, the FILE operands and stdout, and turns them into jobs in
//! output order and the lines each outcome prints.
//!
//! - [`hash`]: hash mode (no `-c`), and `--tree-digest`;
//! - [`check`]: `-c`, and `--audit` ([`check::audit`]);
//! - [`update`]: `--update SUMS`, which hashes with [`hash`] what SUMS
//!   does not list and reads SUMS with [`check`]'s line parser;
//! - [`list`]: `--files0-from`, `--files-from`, the names [`hash`] hashes;
//! - [`shard`]: `--shard K/N`, the share [`hash`] hashes and its header;
//! - [`merge`]: `--merge PART...`, the one manifest of the shards;
//! - [`meta`]: `--meta`'s record of a file's size and mtime;
//! - [`names`]: names in normal form, as `--audit` and `--update` compare
//!   a manifest's with a walk's, and the check files a walk leaves out;
//! - [`checkpoint`]: what an `--update` hashed so far, for the next run
//!   to resume from.

pub(crate) mod check;
pub(crate) mod checkpoint;
pub(crate) mod hash;
pub(crate) mod list;
pub(crate) mod merge;
pub(crate) mod meta;
pub(crate) mod names;
pub(crate) mod shard;
pub(crate) mod update;
