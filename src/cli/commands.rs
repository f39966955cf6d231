//! The command a run is, resolved from [`Args`]: what every command
//! refuses ([`refuse_any_command`]), then one function per command: check
//! or audit ([`check_command`]), hash ([`hash_command`]), update
//! ([`update_command`]).

use std::ffi::OsString;

use crate::algo::Algorithm;
use crate::config::{
    AuditOptions, CheckOptions, Command, Dialect, GnuRules, HashOptions, List, Shard, Shares,
    Signed, Tags, UpdateOptions, Verbosity, XofOutput,
};
use crate::walk::{Exclude, Walk};

use super::name::{Flavour, Invocation};
use super::options::{self, Args};
use super::usage::{Conflict, UsageError};

/// What every command refuses, before its own: b3sum's clap's refusals
/// (made before b3sum runs), cksum's CRC and sum's checksums beside what
/// they cannot go with, then GNU's digest encodings and `--tag` with text
/// mode.
pub(super) fn refuse_any_command(
    args: &Args,
    inv: &Invocation,
    xof: Option<XofOutput>,
) -> Result<(), Conflict> {
    if inv.flavour() == Flavour::B3sum
        && let Some(c) = b3sum_validation(args)
    {
        return Err(c);
    }
    if let Some(out) = xof
        && out.raw
        && args.files.len() > 1
    {
        return Err(Conflict::B3sumRawInputs);
    }
    // cksum's CRC and sum's checksums print their own lines: never checked
    // (as GNU cksum), never beside another algorithm or in a manifest
    if let Some(&legacy) = args.algorithms.iter().find(|a| a.legacy().is_some()) {
        if args.check {
            return Err(Conflict::CheckLegacy(legacy == Algorithm::Crc32b));
        }
        let with = [
            (args.algorithms.len() > 1).then_some("other algorithms"),
            args.update.as_ref().map(|_| "--update"),
            args.tree_digest.then_some("--tree-digest"),
        ];
        if let Some(what) = with.into_iter().flatten().next() {
            return Err(Conflict::LegacyWith(legacy, what));
        }
    }
    if args.base64 && args.raw_digest {
        return Err(Conflict::Base64WithRaw);
    }
    if args.raw_digest && !args.check && args.files.len() > 1 {
        return Err(Conflict::RawWithFiles);
    }
    // in GNU's order: --tag with text mode first, then the check-mode ones
    if args.tag && args.binary == Some(false) {
        return Err(Conflict::TagWithText);
    }
    Ok(())
}

/// `-c`: the check-mode refusals in GNU's order, then `Check`, or `Audit`
/// with `--audit DIR`.
pub(super) fn check_command(args: &Args, inv: &Invocation) -> Result<Command, UsageError> {
    let refuse = |c| Err(UsageError::Conflict(c));
    let cksum = inv.flavour() == Flavour::Cksum;
    if args.zero {
        return refuse(Conflict::ZeroWhenChecking);
    }
    if args.signature.is_some() && args.verify_with.is_none() {
        return refuse(Conflict::SignatureWithoutKey);
    }
    if args.tag && !cksum {
        return refuse(Conflict::TagWhenChecking);
    }
    // (cksum has no -b/-t, and its --tag with -c is no refusal there)
    if args.binary.is_some() && !cksum {
        return refuse(Conflict::BinaryOrTextWhenChecking);
    }
    let audit = !args.audit.is_empty();
    let walk_flags = [
        (!args.exclude.is_empty()).then_some("--exclude"),
        args.max_depth.map(|_| "--max-depth"),
        args.one_file_system.then_some("--one-file-system"),
    ];
    let hash_only = walk_flags.into_iter().filter(|_| !audit).chain([
        args.update.as_ref().map(|_| "--update"),
        args.prune.then_some("--prune"),
        args.meta.then_some("--meta"),
        args.tree_digest.then_some("--tree-digest"),
        args.files_from.as_ref().map(|(_, z)| list_option(*z)),
        args.shard.map(|_| "--shard"),
        args.merge.then_some("--merge"),
        args.output.as_ref().map(|_| "--output"),
    ]);
    if let Some(flag) = hash_only.flatten().next() {
        return refuse(Conflict::NotWhenChecking(flag));
    }
    if audit && args.ignore_missing {
        return refuse(Conflict::AuditWith("--ignore-missing"));
    }
    let check = CheckOptions {
        verbosity: args.verbosity.unwrap_or(Verbosity::Normal),
        strict: args.strict,
        ignore_missing: args.ignore_missing,
        dialect: dialect(args, inv),
        style: (inv.row().style.check)(args, inv),
        signed: args.verify_with.as_ref().map(|key| Signed {
            key: key.into(),
            signature: args.signature.as_ref().map(Into::into),
        }),
    };
    if !audit {
        return Ok(Command::Check(check));
    }
    Ok(Command::Audit(AuditOptions {
        check,
        dirs: args.audit.clone(),
        walk: Walk {
            recursive: true,
            exclude: exclude(&args.exclude)?,
            max_depth: args.max_depth,
            one_file_system: args.one_file_system,
            no_prefetch: false,
        },
    }))
}

/// Without `-c`: the refusals of hashing in GNU's order (and fastsum's
/// own: the walk's options, `--json`, `--tree-digest`), then `Hash`, or
/// `Update` with `--update SUMS`.
pub(super) fn hash_command(
    args: &Args,
    inv: &Invocation,
    xof: Option<XofOutput>,
) -> Result<Command, UsageError> {
    let b3sum = inv.flavour() == Flavour::B3sum;
    if args.merge {
        return merge_command(args).map_err(UsageError::Conflict);
    }
    refuse_not_hashing(args, inv).map_err(UsageError::Conflict)?;
    let exclude = exclude(&args.exclude)?;
    // --update takes --quiet and --status: they silence what it says;
    // b3sum's clap waives --quiet's need of --check when an option that
    // --check conflicts with is given (b3sum --quiet --tag f)
    let waived = b3sum && (args.tag || xof.is_some());
    let verbosity = args
        .verbosity
        .filter(|_| !waived)
        .filter(|v| args.update.is_none() || !matches!(v, Verbosity::Quiet | Verbosity::Status))
        .map(|v| match v {
            Verbosity::Status => "--status",
            Verbosity::Warn => "--warn",
            _ => "--quiet",
        });
    let only_check = [
        args.ignore_missing.then_some("--ignore-missing"),
        verbosity,
        args.strict.then_some("--strict"),
    ];
    if let Some(flag) = only_check.into_iter().flatten().next() {
        return Err(UsageError::Conflict(Conflict::OnlyWhenChecking(flag)));
    }
    let walk = Walk {
        recursive: args.recursive,
        exclude,
        max_depth: args.max_depth,
        one_file_system: args.one_file_system,
        no_prefetch: false,
    };
    let shares = shares(args).map_err(UsageError::Conflict)?;
    let hash = HashOptions {
        style: (inv.row().style.hash)(args, inv, xof),
        walk,
        tree_digest: args.tree_digest,
        shares,
        meta: args.meta,
    };
    if args.tree_digest {
        refuse_tree_digest(args).map_err(UsageError::Conflict)?;
    }
    match &args.update {
        None if args.prune => Err(UsageError::Conflict(Conflict::OnlyWhenUpdating("--prune"))),
        None => Ok(Command::Hash(hash)),
        Some(sums) => update_command(args, hash, sums, inv.flavour() == Flavour::Fastsum),
    }
}

/// `--files0-from` or `--files-from`, as its option is named.
fn list_option(zero: bool) -> &'static str {
    if zero {
        "--files0-from"
    } else {
        "--files-from"
    }
}

/// `--merge PART...`: no option that makes lines (the parts' headers say
/// what the run was), at least one part.
fn merge_command(args: &Args) -> Result<Command, Conflict> {
    let with = [
        (!args.algorithms.is_empty()).then_some("-a"),
        args.tag.then_some("--tag"),
        args.zero.then_some("--zero"),
        args.json.then_some("--json"),
        args.base64.then_some("--base64"),
        args.binary.map(|b| if b { "--binary" } else { "--text" }),
        args.recursive.then_some("--recursive"),
        args.files_from.as_ref().map(|(_, z)| list_option(*z)),
        args.list_sizes.then_some("--list-sizes"),
        args.meta.then_some("--meta"),
        args.shard.map(|_| "--shard"),
        args.update.as_ref().map(|_| "--update"),
        args.tree_digest.then_some("--tree-digest"),
    ];
    if let Some(flag) = with.into_iter().flatten().next() {
        return Err(Conflict::MergeWith(flag));
    }
    if args.files.is_empty() {
        return Err(Conflict::MergeWithoutParts);
    }
    Ok(Command::Merge(args.output.as_ref().map(Into::into)))
}

/// The list, the shard and the output of a hashing run: a list takes no
/// FILE (GNU du's and wc's rule); a list, a shard or an output is no
/// manifest update or tree digest (which take their FILEs).
fn shares(args: &Args) -> Result<Shares, Conflict> {
    if let Some((_, zero)) = &args.files_from
        && let Some(extra) = args.files.first()
    {
        return Err(Conflict::ListWithOperand(extra.clone(), list_option(*zero)));
    }
    let apart = [
        args.update.as_ref().map(|_| "--update"),
        args.tree_digest.then_some("--tree-digest"),
        args.raw_digest.then_some("--raw"),
    ];
    let split = [
        args.files_from.as_ref().map(|(_, z)| list_option(*z)),
        args.shard.map(|_| "--shard"),
        args.output.as_ref().map(|_| "--output"),
    ];
    if let (Some(what), Some(flag)) = (
        apart.into_iter().flatten().next(),
        split.into_iter().flatten().next(),
    ) {
        return Err(Conflict::ShardWith(flag, what));
    }
    if args.list_sizes {
        if args.files_from.is_none() {
            return Err(Conflict::ShardWith(
                "--list-sizes",
                "FILE operands (it reads a list)",
            ));
        }
        if args.recursive {
            return Err(Conflict::ShardWith("--list-sizes", "--recursive"));
        }
    }
    Ok(Shares {
        list: args.files_from.as_ref().map(|(path, zero)| List {
            path: path.clone(),
            zero: *zero,
            sizes: args.list_sizes,
        }),
        shard: args.shard.map(|(k, n)| Shard {
            k,
            n,
            run: run_words(args),
        }),
        output: args.output.as_ref().map(Into::into),
    })
}

/// The options and operands that shape a run's lines, as one word for a
/// shard's header (the algorithms are added by the shard, once resolved):
/// each byte outside printable ASCII, `%` and `,` as `%XX`, words joined
/// by `,`.
fn run_words(args: &Args) -> String {
    let mut words: Vec<OsString> = Vec::new();
    let flags = [
        (args.tag, "--tag"),
        (args.binary == Some(true), "--binary"),
        (args.zero, "--zero"),
        (args.json, "--json"),
        (args.base64, "--base64"),
        (args.recursive, "--recursive"),
        (args.one_file_system, "--one-file-system"),
        (args.meta, "--meta"),
    ];
    words.extend(flags.iter().filter(|f| f.0).map(|f| f.1.into()));
    words.extend(args.exclude.iter().map(|p| format!("--exclude={p}").into()));
    words.extend(args.max_depth.map(|d| format!("--max-depth={d}").into()));
    if let Some((list, zero)) = &args.files_from {
        let mut word = OsString::from(format!("{}=", list_option(*zero)));
        word.push(list);
        words.push(word);
    }
    if args.list_sizes {
        words.push("--list-sizes".into());
    }
    words.push("--".into());
    words.extend(args.files.iter().cloned());
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        for &b in word.as_encoded_bytes() {
            if b.is_ascii_graphic() && b != b'%' && b != b',' {
                out.push(char::from(b));
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// What hashing refuses before its options are read: the walk's options
/// without `-r`, `--audit` without `-c`, `--json` beside another format.
fn refuse_not_hashing(args: &Args, inv: &Invocation) -> Result<(), Conflict> {
    let walk_only = [
        (!args.exclude.is_empty()).then_some("--exclude"),
        args.max_depth.map(|_| "--max-depth"),
        args.one_file_system.then_some("--one-file-system"),
    ];
    if let Some(flag) = walk_only.into_iter().flatten().next()
        && !args.recursive
    {
        return Err(Conflict::OnlyWhenRecursive(flag));
    }
    let check_only = [
        (!args.audit.is_empty()).then_some("--audit"),
        args.verify_with.as_ref().map(|_| "--verify-with"),
        args.signature.as_ref().map(|_| "--signature"),
    ];
    if let Some(flag) = check_only.into_iter().flatten().next() {
        return Err(Conflict::OnlyWhenChecking(flag));
    }
    let json_with = [
        // (fastsum's --json writes its digests in base64 then)
        (args.base64 && inv.flavour() != Flavour::Fastsum).then_some("--base64"),
        args.raw_digest.then_some("--raw"),
        args.tag.then_some("--tag"),
        args.zero.then_some("--zero"),
        args.binary.map(|b| if b { "--binary" } else { "--text" }),
        args.tree_digest.then_some("--tree-digest"),
        args.update.as_ref().map(|_| "--update"),
    ];
    if let Some(flag) = json_with.into_iter().flatten().next()
        && args.json
    {
        return Err(Conflict::JsonWith(flag));
    }
    let meta_with = [
        args.zero.then_some("--zero"),
        args.raw_digest.then_some("--raw"),
    ];
    if let Some(what) = meta_with.into_iter().flatten().next()
        && args.meta
    {
        return Err(Conflict::MetaWith(what));
    }
    Ok(())
}

/// b3sum's XOF output (`-l`, `--raw`, `--no-names`), when asked for.
pub(super) fn xof(args: &Args) -> Option<XofOutput> {
    (args.raw || args.no_names || args.length.is_some()).then(|| XofOutput {
        length: args.length.unwrap_or(blake3::OUT_LEN as u64),
        raw: args.raw,
        no_names: args.no_names,
    })
}

/// `--tree-digest`: only with `-r`, and one hex digest per operand.
fn refuse_tree_digest(args: &Args) -> Result<(), Conflict> {
    if !args.recursive {
        return Err(Conflict::OnlyWhenRecursive("--tree-digest"));
    }
    let with = [
        args.update.as_ref().map(|_| "--update"),
        args.meta.then_some("--meta"),
        (args.algorithms.len() > 1).then_some("several algorithms"),
        args.base64.then_some("--base64"),
        args.raw_digest.then_some("--raw"),
    ];
    match with.into_iter().flatten().next() {
        Some(what) => Err(Conflict::TreeDigestWith(what)),
        None => Ok(()),
    }
}

/// `--update SUMS`: a manifest's lines, hex, one algorithm, of files
/// (`own`: under fastsum's own name).
fn update_command(
    args: &Args,
    hash: HashOptions,
    sums: &OsString,
    own: bool,
) -> Result<Command, UsageError> {
    let refuse = |c| Err(UsageError::Conflict(c));
    if args.zero {
        return refuse(Conflict::UpdateWith("--zero"));
    }
    if args.base64 || args.raw_digest {
        return refuse(Conflict::UpdateWith(if args.base64 {
            "--base64"
        } else {
            "--raw"
        }));
    }
    if args.algorithms.len() > 1 {
        return refuse(Conflict::UpdateWith("several algorithms"));
    }
    // a manifest lists files: a line for standard input would make
    // `md5sum -c` read its own stdin
    if args.files.is_empty() || args.files.iter().any(|f| f == "-") {
        return refuse(Conflict::UpdateWithoutFiles);
    }
    Ok(Command::Update(UpdateOptions {
        hash,
        sums: sums.into(),
        prune: args.prune,
        algorithm_chosen: !args.algorithms.is_empty(),
        by_name: args.algorithms.is_empty() && own,
        quiet: matches!(args.verbosity, Some(Verbosity::Quiet | Verbosity::Status)),
    }))
}
/// What b3sum's clap refuses once the options are read, in its order: an
/// option `--check` conflicts with, then `--quiet` without `--check`
/// (waived when such an option is given). Its words quote the options in
/// the order given, and its usage line those it does not blame.
fn b3sum_validation(args: &Args) -> Option<Conflict> {
    let used = &args.b3sum_used;
    let against = |u: &&str| options::B3SUM_NOT_WITH_CHECK.contains(u);
    let files = if args.files.is_empty() {
        "[FILE]..."
    } else {
        "<FILE>..."
    };
    let usage = |keep: &dyn Fn(&&str) -> bool| -> String {
        let mut words: Vec<&str> = used.iter().copied().filter(|u| keep(u)).collect();
        words.push(files);
        words.join(" ")
    };
    if used.contains(&"--check") {
        let first = *used.iter().find(|u| **u == "--check" || against(u))?;
        if first != "--check" {
            return Some(Conflict::B3sumClap {
                first,
                with: vec!["--check"],
                usage: usage(&|u| *u != "--check"),
            });
        }
        let with: Vec<&'static str> = used.iter().copied().filter(|u| against(u)).collect();
        return (!with.is_empty()).then(|| Conflict::B3sumClap {
            first,
            with,
            usage: usage(&|u| !against(u)),
        });
    }
    if used.contains(&"--quiet") && !used.iter().any(against) {
        return Some(Conflict::B3sumNeedsCheck(format!(
            "--check {}",
            usage(&|_| true)
        )));
    }
    None
}

/// What `-c` reads check lines by under a name, for whichever grammar its
/// row names (GNU's reads by the `GnuRules`, xxhsum's by its
/// `--little-endian`, b3sum's by nothing).
pub(super) fn dialect(args: &Args, inv: &Invocation) -> Dialect {
    let cksum = inv.flavour() == Flavour::Cksum;
    Dialect {
        gnu: GnuRules {
            tags: tags(inv.flavour(), &args.algorithms),
            // (cksum's default, the CRC, chooses nothing: its -c takes any tag)
            algorithm_chosen: !args.algorithms.is_empty()
                || (inv.default_algorithm.is_some() && !cksum),
            // (fastsum reads the lines its --base64 writes)
            base64: cksum || inv.flavour() == Flavour::Fastsum,
            own_rules: inv.flavour() == Flavour::Fastsum,
        },
        little_endian: args.little_endian,
    }
}

/// How `-c` reads tags under a name (GNU's tools differ), with the `-a`
/// given. fastsum with one `-a` reads them as that algorithm's GNU tool
/// does (`-a md5` as md5sum, `-a blake2b` as b2sum, `-a sm3` as cksum;
/// its own algorithms as md5sum), and without as cksum.
fn tags(flavour: Flavour, chosen: &[Algorithm]) -> Tags {
    match (flavour, chosen) {
        (Flavour::B2sum, _) | (Flavour::Cksum, [_]) => Tags::SkipOne,
        (Flavour::Cksum, _) => Tags::Cksum,
        (Flavour::Fastsum, [Algorithm::Blake2b(_) | Algorithm::Sm3 | Algorithm::Sha3(_)]) => {
            Tags::SkipOne
        }
        (Flavour::Fastsum, [_]) => Tags::Exact,
        (Flavour::Fastsum, _) => Tags::Any,
        // (b3sum's and xxhsum's check lines have parsers of their own)
        _ => Tags::Exact,
    }
}

/// The exclude patterns as a set; a usage error names what is wrong.
fn exclude(patterns: &[String]) -> Result<Exclude, UsageError> {
    Exclude::new(patterns.iter().map(String::as_str))
        .map_err(|e| UsageError::Conflict(Conflict::Patterns(e.reason)))
}
