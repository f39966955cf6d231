//! README's shell examples, run as written (issue 29: the backup recipe
//! failed when followed exactly). Every ```sh block of README.md is split
//! into its commands (a line, its `\` continuations, and the lines that
//! complete a `for … done`), and each command runs with `sh -c` in a
//! prepared temporary tree, `fastsum` on PATH naming the binary under test
//! and HOME a temporary directory; its exit status and output are checked.
//!
//! The rewrites: in the backup recipe, `/backup` is `$TMP/backup` (so
//! `/backup.sums` is `$TMP/backup.sums`); in the download story, the
//! release's `https://example.org/v1.0/` is a `file://` directory the test
//! fills and signs. Two `cargo` commands are not run
//! here (this suite, and the install into ~/.cargo); the quick start's
//! `cargo run --release -- ARGS` runs as `fastsum ARGS` (the build is this
//! suite's own) and its line is compared with the command its comment names.
//! The machine's set-up and CI (`sudo apt-get install`, `bash .ci/setup`,
//! `.ci/run --quick`) are not run either; the apt line's packages are
//! compared with `.ci/setup`'s. A command whose
//! tool is missing (jq) is skipped, named in the summary of skips. A block
//! this file does not know runs in the prepared tree and must exit 0.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{Bounded, fastsum_path, require_tool, run, shown, skip, tempdir, write_file};

/// README's ```sh blocks, each as its commands.
fn blocks() -> Vec<Vec<String>> {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(readme).unwrap();
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "```sh" {
            continue;
        }
        let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        blocks.push(commands(&body));
    }
    blocks
}

/// The commands of a block: a line ending in `\` goes on with the next, and
/// lines join until `sh -n` finds the command complete (a `for` loop).
fn commands(body: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut acc = String::new();
    for line in body {
        if acc.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        acc.push_str(line);
        acc.push('\n');
        if line.ends_with('\\') {
            continue;
        }
        let complete = Command::new("sh")
            .args(["-n", "-c", &acc])
            .bounded_output()
            .is_ok_and(|o| o.status.success());
        if complete {
            out.push(std::mem::take(&mut acc));
        }
    }
    if !acc.is_empty() {
        out.push(acc);
    }
    out
}

/// Where the commands run: `dir` as the current directory, `home` as HOME,
/// PATH starting with a directory whose `fastsum` is the binary under test.
struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    dir: PathBuf,
    home: PathBuf,
    path: std::ffi::OsString,
}

impl Env {
    fn new() -> Env {
        let tmp = tempdir();
        let root = tmp.path().to_path_buf();
        let bin = root.join("bin");
        let dir = root.join("work");
        let home = root.join("home");
        for d in [&bin, &dir, &home] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::os::unix::fs::symlink(fastsum_path(), bin.join("fastsum")).unwrap();
        let mut path = bin.into_os_string();
        if let Some(p) = std::env::var_os("PATH") {
            path.push(":");
            path.push(p);
        }
        Env {
            _tmp: tmp,
            root,
            dir,
            home,
            path,
        }
    }

    /// `sh -c cmd` in `cwd`.
    fn sh_in(&self, cwd: &Path, cmd: &str) -> Output {
        run(Command::new("sh")
            .current_dir(cwd)
            .env("HOME", &self.home)
            .env("PATH", &self.path)
            .env("LC_ALL", "C.UTF-8")
            .args(["-c", cmd]))
    }

    fn sh(&self, cmd: &str) -> Output {
        self.sh_in(&self.dir, cmd)
    }
}

/// Assert that `o`, the run of `cmd`, exited 0.
fn ok(cmd: &str, o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{cmd}\n{}", shown(o));
}

/// What a GNU tool prints for `args` in `dir`.
fn gnu_out(dir: &Path, tool: &str, args: &[&str]) -> String {
    let o = run(crate::util::gnu(tool).current_dir(dir).args(args));
    assert!(o.status.success(), "{tool} {args:?}: {}", shown(&o));
    String::from_utf8(o.stdout).unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The block whose commands include one containing `needle`.
fn block_with<'a>(blocks: &'a [Vec<String>], needle: &str) -> &'a [String] {
    blocks
        .iter()
        .find(|b| b.iter().any(|c| c.contains(needle)))
        .unwrap_or_else(|| panic!("README has no ```sh block with {needle:?}"))
}

/// "A backup that stays verified", followed exactly: the first manifest
/// (with `#meta` lines), an update after files came and went, then an
/// audit that finds the tree as listed; and the audit still sees what
/// changes later, telling a file whose bytes rotted (size and mtime as
/// recorded) from one edited since (issue 43).
#[test]
fn the_backup_recipe_works_as_written() {
    let blocks = blocks();
    let recipe = block_with(&blocks, "--audit /backup");
    assert_eq!(recipe.len(), 3, "the recipe's three steps: {recipe:?}");
    let env = Env::new();
    let backup = env.root.join("backup");
    std::fs::create_dir_all(backup.join("2026/photos")).unwrap();
    // files of a backup are older than the run that hashes them (a file
    // modified in the last 2 s gets no mtime on its #meta line)
    let written = |name: &str, bytes: &[u8]| {
        write_file(&backup, name, bytes);
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let f = std::fs::File::options()
            .write(true)
            .open(backup.join(name))
            .unwrap();
        f.set_modified(hour_ago).unwrap();
    };
    written("2026/notes.txt", b"notes\n");
    written("2026/photos/a b.jpg", b"jpeg a\n");
    written("2026/photos/c.jpg", b"jpeg c\n");
    // the one rewrite: /backup is under the temporary directory
    let root = env.root.to_str().unwrap();
    let steps: Vec<String> = recipe
        .iter()
        .map(|c| c.replace("/backup", &format!("{root}/backup")))
        .collect();
    let sums = env.root.join("backup.sums");
    let digest_lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };

    // once: a manifest of the three files, each after its #meta line
    let o = env.sh(&steps[0]);
    ok(&steps[0], &o);
    let listed = std::fs::read_to_string(&sums).unwrap();
    assert_eq!(digest_lines(&listed).len(), 3, "{listed}");
    assert_eq!(
        listed
            .lines()
            .filter(|l| l.starts_with("#meta size="))
            .count(),
        3,
        "{listed}"
    );

    // a backup later: one file came, one went
    written("2027.txt", b"next year\n");
    std::fs::remove_file(backup.join("2026/notes.txt")).unwrap();
    let o = env.sh(&steps[1]);
    ok(&steps[1], &o);
    let updated = std::fs::read_to_string(&sums).unwrap();
    assert_eq!(digest_lines(&updated).len(), 3, "{updated}");
    assert!(updated.contains("2027.txt") && !updated.contains("notes.txt"));
    // the manifest kept one algorithm and one format, which -c reads
    let first = digest_lines(&listed).remove(0);
    let form = |l: &str| l.split(' ').next().map(str::len);
    assert!(
        digest_lines(&updated)
            .iter()
            .all(|l| form(l) == form(&first)),
        "mixed lines:\n{updated}"
    );

    // the audit: nothing changed since the update
    let o = env.sh(&steps[2]);
    ok(&steps[2], &o);
    assert_eq!(text(&o.stdout), "", "{}", shown(&o));
    assert_eq!(
        text(&o.stderr),
        "fastsum: audit: 3 OK, 0 FAILED, 0 DAMAGED, 0 MODIFIED, 0 UNREADABLE, 0 MISSING, 0 NEW, 0 MOVED\n"
    );

    // and it sees rot (the same size, the mtime set back), an edit, a
    // move, and a file no update added
    let c = backup.join("2026/photos/c.jpg");
    let mtime = std::fs::metadata(&c).unwrap().modified().unwrap();
    std::fs::write(&c, b"jpeg C\n").unwrap();
    let f = std::fs::File::options().write(true).open(&c).unwrap();
    f.set_modified(mtime).unwrap();
    write_file(&backup, "2026/photos/a b.jpg", b"jpeg a, edited\n");
    std::fs::rename(backup.join("2027.txt"), backup.join("2027-moved.txt")).unwrap();
    write_file(&backup, "stray", b"?\n");
    let o = env.sh(&steps[2]);
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    let b = format!("{root}/backup");
    assert_eq!(
        text(&o.stdout),
        format!(
            "{b}/2026/photos/a b.jpg: MODIFIED\n\
             {b}/2026/photos/c.jpg: DAMAGED\n\
             {b}/2027-moved.txt: MOVED from {b}/2027.txt\n\
             {b}/stray: NEW\n"
        )
    );
    assert!(
        text(&o.stderr).contains("c.jpg: DAMAGED: its bytes changed"),
        "{}",
        shown(&o)
    );
}

/// README's first block, the download story, followed exactly: a release
/// directory (`https://example.org/v1.0/` rewritten to it as a `file://`
/// URL) holding the tarball, SHA256SUMS of it and another file, and
/// SHA256SUMS.asc signed by a key made here, exported to `release-key.asc`
/// in the working directory. Then the same with the tarball changed.
#[test]
fn the_download_story_works_as_written() {
    if !["curl", "gpg", "gpgv", "tar", "sha256sum"]
        .iter()
        .all(|t| require_tool(t))
    {
        return;
    }
    let blocks = blocks();
    let story = block_with(&blocks, "https://example.org/");
    assert_eq!(story.len(), 3, "download, verify, use: {story:?}");
    let env = Env::new();
    let release = env.root.join("release");
    std::fs::create_dir_all(release.join("src")).unwrap();
    write_file(&release, "src/README", b"the tool\n");
    let tar = run(Command::new("tar")
        .current_dir(&release)
        .args(["czf", "tool.tar.gz", "src"]));
    assert!(tar.status.success(), "{}", shown(&tar));
    write_file(&release, "tool.zip", b"another download\n");
    let sums = run(Command::new("sha256sum")
        .current_dir(&release)
        .args(["tool.tar.gz", "tool.zip"]));
    write_file(&release, "SHA256SUMS", &sums.stdout);
    let home = env.root.join("gnupg");
    std::fs::create_dir(&home).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
    let gpg = |args: &[&str]| {
        let o = run(Command::new("gpg")
            .current_dir(&release)
            .env("GNUPGHOME", &home)
            .args(["--batch", "--passphrase", ""])
            .args(args));
        assert!(o.status.success(), "gpg {args:?}: {}", shown(&o));
        o.stdout
    };
    gpg(&[
        "--quick-gen-key",
        "Release <release@example.org>",
        "ed25519",
        "sign",
        "never",
    ]);
    gpg(&[
        "--armor",
        "--detach-sign",
        "-o",
        "SHA256SUMS.asc",
        "SHA256SUMS",
    ]);
    let key = gpg(&["--armor", "--export", "release@example.org"]);
    write_file(&env.dir, "release-key.asc", &key);
    // (the agent gpg started for this home: stopped if gpgconf is there)
    let _ = Command::new("gpgconf")
        .env("GNUPGHOME", &home)
        .args(["--kill", "gpg-agent"])
        .bounded_output();
    let url = format!("file://{}/", release.to_str().unwrap());
    let steps: Vec<String> = story
        .iter()
        .map(|c| c.replace("https://example.org/v1.0/", &url))
        .collect();

    let o = env.sh(&steps[0]);
    ok(&steps[0], &o);
    let o = env.sh(&steps[1]);
    ok(&steps[1], &o);
    assert_eq!(text(&o.stdout), "tool.tar.gz: OK\n", "{}", shown(&o));
    assert!(
        text(&o.stderr).starts_with("fastsum: SHA256SUMS: signature good, by OpenPGP key ")
            && text(&o.stderr).lines().count() == 1,
        "{}",
        shown(&o)
    );
    let o = env.sh(&steps[2]);
    ok(&steps[2], &o);
    assert!(env.dir.join("src/README").is_file());

    // a tarball that is not the one signed for: the check fails, and
    // joined with && the third command does not run
    std::fs::remove_dir_all(env.dir.join("src")).unwrap();
    write_file(&release, "tool.tar.gz", b"not the release\n");
    let o = env.sh(&steps[0]);
    ok(&steps[0], &o);
    let o = env.sh(&format!("{} && {}", steps[1].trim(), steps[2].trim()));
    assert_eq!(o.status.code(), Some(1), "{}", shown(&o));
    assert_eq!(text(&o.stdout), "tool.tar.gz: FAILED\n", "{}", shown(&o));
    assert!(!env.dir.join("src").exists());
}

/// README's set-up and CI commands, not run here: they install packages
/// and run this suite (the apt line is held to `.ci/setup`'s packages by
/// [`the_apt_line_installs_what_setup_installs`]).
const NOT_RUN: [&str; 3] = [
    "sudo apt-get install -y ",
    "bash .ci/setup",
    ".ci/run --quick",
];

/// The packages of README's `apt-get install` line are those `.ci/setup`
/// installs (its `command:package` pairs and `need+=(package)`), so a
/// fresh machine following README gets what CI gets.
#[test]
fn the_apt_line_installs_what_setup_installs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .lines()
        .find_map(|l| l.strip_prefix(NOT_RUN[0]))
        .expect("README has no `sudo apt-get install -y …` line");
    let mut apt: Vec<&str> = line
        .split('#')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let setup = std::fs::read_to_string(root.join(".ci/setup")).unwrap();
    let package = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-+._".contains(&b))
    };
    let mut wanted: Vec<&str> = setup
        .split_whitespace()
        .map(|w| w.trim_end_matches(';'))
        .filter_map(|w| match w.split_once(':') {
            Some((tool, pkg)) if package(tool) && package(pkg) => Some(pkg),
            _ => w.strip_prefix("need+=(")?.strip_suffix(')'),
        })
        .filter(|pkg| package(pkg))
        .collect();
    apt.sort_unstable();
    wanted.sort_unstable();
    wanted.dedup();
    assert!(wanted.len() > 20, "{wanted:?}");
    assert_eq!(
        apt, wanted,
        "README's apt-get line against .ci/setup's packages"
    );
}

/// README fits on a few screens (issue 46), the drop-in links come first
/// on PATH, and the object stores' CRC-64/NVME shows as S3 shows it.
#[test]
fn readme_is_short_and_says_what_matters() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md has {lines} lines, more than 250");
    let blocks = blocks();
    let links = block_with(&blocks, "ln -sf");
    assert!(
        links
            .iter()
            .any(|c| c.starts_with("export PATH=\"$HOME/bin:$PATH\"")),
        "the drop-in links' directory must come first on PATH: {links:?}"
    );
    let crc = readme
        .lines()
        .find_map(|l| l.strip_prefix("CRC64NVME (disk.img) = "))
        .expect("README's S3 example has a CRC-64/NVME line");
    assert!(
        crc.len() == 12 && crc.ends_with('='),
        "S3 shows base64: {crc}"
    );
}

/// A tree for the examples: files named as README names them (small ones).
fn example_tree(dir: &Path) {
    write_file(dir, "big.iso", &crate::util::random_bytes(300_000, 1));
    write_file(dir, "a.tar.gz", b"tarball a\n");
    write_file(dir, "b.tar.gz", b"tarball b\n");
    for d in ["photos/2026", "src/cache", "release/bin"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    write_file(dir, "photos/2026/one.jpg", b"one\n");
    write_file(dir, "photos/two.jpg", b"two\n");
    write_file(dir, "src/main.rs", b"fn main() {}\n");
    write_file(dir, "src/x.tmp", b"tmp\n");
    write_file(dir, "src/cache/c", b"cached\n");
    write_file(dir, "release/bin/tool", b"tool\n");
    write_file(dir, "release/README", b"read me\n");
}

/// What is checked of one example beyond its exit status 0 (in the order
/// README gives them; each runs after the ones before it, in one tree).
fn check_example(env: &Env, cmd: &str, o: &Output) {
    let d = &env.dir;
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    let first = cmd.split('#').next().unwrap_or(cmd).trim();
    // every example succeeds; only --stats, --audit (a summary) and
    // --update (what it did) write to stderr
    ok(cmd, o);
    if !["--stats", "--audit", "--update"]
        .iter()
        .any(|opt| first.contains(opt))
    {
        assert_eq!(err, "", "{cmd}");
    }
    match first {
        "fastsum big.iso" => assert_eq!(out, gnu_out(d, "md5sum", &["big.iso"])),
        "fastsum -a sha256 *.tar.gz > SHA256SUMS" => assert_eq!(
            std::fs::read_to_string(d.join("SHA256SUMS")).unwrap(),
            // (tagged, as GNU cksum -a sha256 writes them: issue 40 §7)
            gnu_out(d, "cksum", &["-a", "sha256", "a.tar.gz", "b.tar.gz"])
        ),
        c if c.contains("-c") && c.contains("SHA256SUMS") && c.contains("--quiet") => {
            assert_eq!(out, "", "{cmd}")
        }
        c if c.contains("-c") && c.contains("SHA256SUMS") => {
            assert_eq!(out, "a.tar.gz: OK\nb.tar.gz: OK\n", "{cmd}")
        }
        "cat big.iso | fastsum" => assert_eq!(
            out,
            gnu_out(d, "md5sum", &["big.iso"]).replace("big.iso", "-")
        ),
        "fastsum --tag -a blake3 big.iso" => {
            let data = std::fs::read(d.join("big.iso")).unwrap();
            assert_eq!(
                out,
                format!("BLAKE3 (big.iso) = {}\n", blake3::hash(&data).to_hex())
            );
        }
        "fastsum -r photos/ > MD5SUMS" => {
            let sums = std::fs::read_to_string(d.join("MD5SUMS")).unwrap();
            assert_eq!(sums.lines().count(), 2, "{sums}");
        }
        c if c.contains("--exclude") => {
            assert!(out.contains("src/main.rs"), "{out}");
            assert!(!out.contains(".tmp") && !out.contains("cache"), "{out}");
        }
        c if c.contains("--update MD5SUMS") => {
            let sums = std::fs::read_to_string(d.join("MD5SUMS")).unwrap();
            assert_eq!(sums.lines().count(), 2, "{sums}");
        }
        c if c.contains("--tree-digest") => {
            assert_eq!(out.lines().count(), 1, "{out}");
            assert!(out.ends_with("  release/\n"), "{out}");
        }
        c if c.contains("--audit") => {
            assert_eq!(
                err,
                "fastsum: audit: 2 OK, 0 FAILED, 0 UNREADABLE, 0 MISSING, 0 NEW, 0 MOVED\n"
            );
        }
        c if c.contains("| jq") => {
            assert_eq!(out.lines().count(), 2, "{out}");
            assert!(out.lines().all(|l| l.len() == 32), "{out}");
        }
        c if c.starts_with("find ") => {
            // a manifest that -c passes (it does not list itself)
            let o = env.sh("fastsum -c --quiet MD5SUMS");
            ok("fastsum -c MD5SUMS after find | xargs", &o);
        }
        c if c.contains("*.iso > SUMS") => {
            let sums = std::fs::read_to_string(d.join("SUMS")).unwrap();
            assert_eq!(sums.lines().count(), 3, "{sums}");
            // tagged lines, each checked by its own algorithm
            let o = env.sh("fastsum -c SUMS");
            ok("fastsum -c SUMS", &o);
            assert_eq!(text(&o.stdout), "big.iso: OK\n".repeat(3), "{}", shown(&o));
        }
        c if c.contains("--stats") => {
            assert_eq!(out, gnu_out(d, "md5sum", &["big.iso"]));
            assert!(err.contains("fastsum: stats: "), "{err}");
        }
        _ => {}
    }
}

/// Every other ```sh block of README, as written: the quick start, the
/// examples, the drop-in links and the man page install.
#[test]
fn every_readme_example_works_as_written() {
    if !require_tool("md5sum") || !require_tool("sha256sum") {
        return;
    }
    let env = Env::new();
    example_tree(&env.dir);
    let has_jq = Command::new("jq")
        .arg("--version")
        .bounded_output()
        .is_ok_and(|o| o.status.success());
    for block in blocks() {
        if block.iter().any(|c| c.contains("/backup")) {
            continue; // the_backup_recipe_works_as_written
        }
        if block.iter().any(|c| c.contains("https://example.org/")) {
            continue; // the_download_story_works_as_written
        }
        for cmd in &block {
            let line = cmd.trim();
            if let Some(args) = line.strip_prefix("cargo run --release -- ") {
                // the quick start: the build is this suite's; the line it prints
                let (args, claim) = args.split_once("# same line as: ").unwrap();
                let o = env.sh(&format!("fastsum {args}"));
                ok(line, &o);
                let want = env.sh(claim.trim());
                ok(claim, &want);
                assert_eq!(text(&o.stdout), text(&want.stdout), "{line}");
                continue;
            }
            if line.starts_with("cargo ") || NOT_RUN.iter().any(|p| line.starts_with(p)) {
                // the suite itself, CI and the machine's set-up: not run
                // here (by design, not for want of a tool: no skip)
                assert!(
                    ["cargo test --locked", "cargo install --locked --path ."].contains(&line)
                        || NOT_RUN.iter().any(|p| line.starts_with(p)),
                    "README has a new cargo command; tests/readme.rs should run it: {line}"
                );
                continue;
            }
            if line.contains("| jq") && !has_jq {
                skip(&format!("README's `{line}`: jq is not installed"));
                continue;
            }
            if line.starts_with("install ") {
                // the man page and completions, from the repository
                let o = env.sh_in(Path::new(env!("CARGO_MANIFEST_DIR")), line);
                ok(line, &o);
                let to = line.split_whitespace().nth(3).unwrap();
                let to = to.replacen('~', env.home.to_str().unwrap(), 1);
                assert!(Path::new(&to).is_file(), "{line}: no {to}");
                continue;
            }
            let o = env.sh(line);
            if line.starts_with("for t in") {
                ok(line, &o);
                continue;
            }
            check_example(&env, line, &o);
        }
    }
    // the drop-in links answer as the tools they stand for
    let links = env.home.join("bin");
    assert!(links.is_dir(), "README's drop-in block made no ~/bin");
    {
        for tool in ["md5sum", "sha256sum"] {
            let o = run(Command::new(links.join(tool))
                .current_dir(&env.dir)
                .env("LC_ALL", "C.UTF-8")
                .arg("big.iso"));
            assert_eq!(
                text(&o.stdout),
                gnu_out(&env.dir, tool, &["big.iso"]),
                "{tool}"
            );
        }
    }
}
