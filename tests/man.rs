//! The man page and the shell completions: rendered from the clap
//! definitions (`fastsum::cli::command()` and `HELP_SECTIONS`), the single
//! source of truth, and compared byte for byte with the committed files, so
//! a stale file fails the suite (and so CI).
//!
//! `FASTSUM_BLESS=1 cargo test --test tests man` rewrites the files. This
//! lives in a test rather than a build script or a runtime flag: nothing
//! extra is compiled into the binary, and CI checks freshness for free.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::ValueEnum;
use clap_complete::Shell;
use clap_mangen::Man;
use fastsum::internals::{HELP_SECTIONS, HelpSection, ModeArg as Mode, command};
use roff::{Roff, bold, italic, roman};

use crate::util::Bounded;
use crate::util::require_tool;
use crate::util::tempdir;

/// The help section that the list of reading modes (`--mode` values) opens.
const MODES_SECTION: &str = "Reading modes";

/// The generated files, each with its contents as rendered now.
fn generated() -> io::Result<Vec<(&'static str, Vec<u8>)>> {
    let mut files = vec![("man/fastsum.1", render_man()?)];
    for (shell, path) in [
        (Shell::Bash, "completions/fastsum.bash"),
        (Shell::Zsh, "completions/_fastsum"),
        (Shell::Fish, "completions/fastsum.fish"),
    ] {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut command(), "fastsum", &mut buf);
        files.push((path, buf));
    }
    Ok(files)
}

/// The man page: clap_mangen's title and name, our synopsis, clap_mangen's
/// description (the long about) and options, then one section per
/// `HELP_SECTIONS` entry (the reading-modes one opened by the list of modes),
/// SEE ALSO, and the version.
fn render_man() -> io::Result<Vec<u8>> {
    let man = Man::new(command());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    out.extend_from_slice(render_synopsis().to_roff().as_bytes());
    man.render_description_section(&mut out)?;
    let mut options = Vec::new();
    man.render_options_section(&mut options)?;
    out.extend_from_slice(option_headings(&String::from_utf8_lossy(&options)).as_bytes());
    let mut roff = Roff::new();
    for section in &HELP_SECTIONS {
        render_section(&mut roff, section);
    }
    roff.control("SH", ["SEE ALSO"]).text([
        bold("md5sum"),
        roman("(1), "),
        bold("sha256sum"),
        roman("(1), "),
        bold("b3sum"),
        roman("(1)"),
    ]);
    out.extend_from_slice(roff.to_roff().as_bytes());
    man.render_version_section(&mut out)?;
    Ok(groff_escapes(&String::from_utf8_lossy(&out)).into_bytes())
}

/// A section title as the man page writes it: upper-cased, as clap_mangen
/// does, but for the options it names (`Trees (with -r)` is `TREES (WITH
/// -r)`: an upper-cased `-R` would name an option that does not exist).
fn man_heading(title: &str) -> String {
    title
        .split(' ')
        .map(|w| {
            if w.trim_start_matches('(').starts_with('-') {
                w.to_string()
            } else {
                w.to_uppercase()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// clap_mangen's options section with its headings (which it upper-cases
/// whole) as [`man_heading`] writes them, an option's `-` as roff's `\-`.
fn option_headings(section: &str) -> String {
    let cmd = command();
    let mut headings: Vec<&str> = cmd
        .get_arguments()
        .filter_map(|a| a.get_help_heading())
        .collect();
    headings.dedup();
    // roff quotes a title with a space in it
    let sh = |title: &str| match title.contains(' ') {
        true => format!("\n.SH \"{title}\"\n"),
        false => format!("\n.SH {title}\n"),
    };
    let mut out = section.to_string();
    for heading in headings {
        let ours = man_heading(heading).replace('-', "\\-");
        out = out.replace(&sh(&heading.to_uppercase()), &sh(&ours));
    }
    out
}

/// Non-ASCII characters (`×`, `…`, clap's `•`) as groff's `\[uXXXX]`
/// escapes: groff without preconv reads its input as Latin-1 and warns.
fn groff_escapes(page: &str) -> String {
    page.chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                format!("\\[u{:04X}]", u32::from(c))
            }
        })
        .collect()
}

/// SYNOPSIS from the clap definitions, with what clap_mangen's leaves out:
/// each option's argument (`-a|--algorithm ALGO`) and the repeated FILE.
fn render_synopsis() -> Roff {
    let mut cmd = command();
    cmd.build();
    let mut line = vec![bold(cmd.get_name()), roman(" ")];
    let mut operands = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let value = arg
            .get_value_names()
            .and_then(|names| names.first())
            .map(|name| name.to_string())
            .filter(|_| arg.get_action().takes_values());
        if arg.is_positional() {
            // `[FILE...]`, optional and repeated, after the options
            let name = value.unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
            operands.extend([roman("["), italic(name), roman("...]")]);
            continue;
        }
        line.push(roman("["));
        if let Some(short) = arg.get_short() {
            line.push(bold(format!("-{short}")));
            if arg.get_long().is_some() {
                line.push(roman("|"));
            }
        }
        if let Some(long) = arg.get_long() {
            line.push(bold(format!("--{long}")));
        }
        if let Some(value) = value {
            line.extend([roman(" "), italic(value)]);
        }
        line.push(roman("] "));
    }
    line.extend(operands);
    let mut roff = Roff::new();
    roff.control("SH", ["SYNOPSIS"]).text(line);
    roff
}

fn render_section(roff: &mut Roff, section: &HelpSection) {
    roff.control("SH", [man_heading(section.title).as_str()]);
    if section.title == MODES_SECTION {
        // skipped variants (none so far) have no possible value
        for value in Mode::value_variants()
            .iter()
            .filter_map(|m| m.to_possible_value())
        {
            let help = value.get_help().map(|h| h.to_string()).unwrap_or_default();
            roff.control("TP", [] as [&str; 0])
                .text([bold(value.get_name())])
                .text([roman(help)]);
        }
        roff.control("PP", [] as [&str; 0]);
    }
    if section.verbatim {
        roff.control("nf", [] as [&str; 0]);
        for line in section.text.lines() {
            roff.text([roman(line)]);
        }
        roff.control("fi", [] as [&str; 0]);
    } else {
        roff.text([roman(section.text)]);
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where `want` and the committed `got` first differ, for the failure message.
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let (w, g) = (String::from_utf8_lossy(want), String::from_utf8_lossy(got));
    let (mut wl, mut gl) = (w.lines(), g.lines());
    for n in 1.. {
        match (wl.next(), gl.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => break,
            (a, b) => {
                return format!(
                    "line {n}:\n  rendered:  {}\n  committed: {}",
                    a.unwrap_or("<end of file>"),
                    b.unwrap_or("<end of file>")
                );
            }
        }
    }
    "the line endings differ".to_string()
}

/// Compare `want` with the file at `path`: `Err` says how it is stale, unless
/// `bless`, which rewrites it instead.
fn check_fresh(path: &Path, want: &[u8], bless: bool) -> Result<(), String> {
    let got = std::fs::read(path).unwrap_or_default();
    if got == want {
        return Ok(());
    }
    if !bless {
        return Err(format!(
            "{} is stale, {}",
            path.display(),
            first_difference(want, &got)
        ));
    }
    let write = |p: &Path| {
        std::fs::create_dir_all(p.parent().unwrap_or(p))?;
        std::fs::write(p, want)
    };
    write(path).map_err(|e| format!("cannot bless {}: {e}", path.display()))?;
    eprintln!("blessed {}", path.display());
    Ok(())
}

/// Every generated file matches its committed copy; with FASTSUM_BLESS=1,
/// rewrite those that do not (and pass).
#[test]
fn generated_files_are_fresh() {
    let bless = std::env::var_os("FASTSUM_BLESS").is_some_and(|v| v == "1");
    let stale: Vec<String> = generated()
        .unwrap()
        .iter()
        .filter_map(|(rel, want)| check_fresh(&root().join(rel), want, bless).err())
        .collect();
    assert!(
        stale.is_empty(),
        "{}\nThe CLI changed: run `FASTSUM_BLESS=1 cargo test --test tests man` and commit the result.",
        stale.join("\n")
    );
}

/// The freshness check itself: a missing or edited file is reported (with
/// the first differing line), blessing rewrites it, then it is fresh.
#[test]
fn stale_files_are_caught_and_blessed() {
    let dir = tempdir();
    let path = dir.path().join("man/x.1");
    let want = b".TH X 1\n.SH NAME\nx\n";
    let e = check_fresh(&path, want, false).unwrap_err();
    assert!(
        e.ends_with("line 1:\n  rendered:  .TH X 1\n  committed: <end of file>"),
        "{e}"
    );
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b".TH X 1\n.SH NAME\ny\n").unwrap();
    let e = check_fresh(&path, want, false).unwrap_err();
    assert!(
        e.ends_with("line 3:\n  rendered:  x\n  committed: y"),
        "{e}"
    );
    check_fresh(&path, want, true).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), want);
    check_fresh(&path, want, false).unwrap();
}

/// Every visible option and every reading mode has a meaning in the man
/// page, and the page has the sections users look for.
#[test]
fn man_page_documents_everything() {
    let man = String::from_utf8(render_man().unwrap()).unwrap();
    let cmd = command();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .map(|h| h.to_string());
        assert!(
            help.is_some_and(|h| !h.trim().is_empty()),
            "option {} has no help text",
            arg.get_id()
        );
        if let Some(long) = arg.get_long() {
            let roff_name = format!("\\-\\-{}", long.replace('-', "\\-"));
            assert!(man.contains(&roff_name), "man page lacks --{long}");
        }
    }
    // the synopsis names each option's argument, and FILE last
    let synopsis = man
        .split("\n.SH SYNOPSIS\n")
        .nth(1)
        .and_then(|rest| rest.split("\n.SH ").next())
        .unwrap_or_default();
    for (option, value) in [("algorithm", "ALGO"), ("jobs", "N"), ("readahead", "SIZE")] {
        let want = format!("\\fB\\-\\-{option}\\fR \\fI{value}\\fR");
        assert!(synopsis.contains(&want), "{want} not in {synopsis}");
    }
    assert!(synopsis.contains("[\\fIFILE\\fR...]"), "{synopsis}");
    for mode in Mode::value_variants() {
        let value = mode.to_possible_value().unwrap();
        let help = value.get_help().map(|h| h.to_string()).unwrap_or_default();
        assert!(!help.is_empty(), "mode {} has no help", value.get_name());
        assert!(man.contains(&format!("\\fB{}\\fR", value.get_name())));
    }
    for heading in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "READING MODES",
        "CHECK FILES",
        "EXIT STATUS",
        "ENVIRONMENT",
        "EXAMPLES",
        "SEE ALSO",
        "VERSION",
    ] {
        // roff quotes a heading with a space in it
        let control = if heading.contains(' ') {
            format!("\n.SH \"{heading}\"\n")
        } else {
            format!("\n.SH {heading}\n")
        };
        assert!(man.contains(&control), "no {heading}");
    }
    assert!(
        HELP_SECTIONS.iter().any(|s| s.title == MODES_SECTION),
        "the mode list needs a section titled {MODES_SECTION}"
    );
}

/// The committed man page, what `man` shows (the freshness test holds it
/// to what is rendered now).
fn committed_man() -> String {
    std::fs::read_to_string(root().join("man/fastsum.1")).unwrap()
}

/// A text line as the man page writes it (roff's escapes, then groff's).
fn roff_line(text: &str) -> String {
    let mut roff = Roff::new();
    roff.text([roman(text)]);
    // render(), as clap_mangen writes: apostrophes as `\*(Aq`
    let page = roff.render();
    groff_escapes(page.lines().last().unwrap_or_default())
}

/// Every option's entry in the man page holds the text `--help` gives it
/// (its long help, else its help), not only its name: clap_mangen writes
/// none for an option hidden from `-h` that has no long help.
#[test]
fn man_page_gives_every_option_its_help_text() {
    let man = committed_man();
    let entries: Vec<&str> = man.split("\n.TP\n").skip(1).collect();
    let cmd = command();
    let mut missing = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_positional()) {
        let Some(long) = arg.get_long() else { continue };
        let name = format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-"));
        let entry = entries
            .iter()
            .find(|e| e.lines().next().is_some_and(|l| l.contains(&name)))
            .unwrap_or_else(|| panic!("no man page entry for --{long}"));
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .map(|h| h.to_string());
        let want = roff_line(&help.unwrap_or_default());
        if want.trim().is_empty() || entry.lines().nth(1) != Some(want.as_str()) {
            missing.push(format!("--{long}: {:?}", entry.lines().nth(1)));
        }
    }
    assert!(
        missing.is_empty(),
        "options without their --help text:\n{}",
        missing.join("\n")
    );
}

/// No section title reads as an option that does not exist: clap_mangen
/// upper-cases a heading whole (`Trees (with -r)` became `-R`).
#[test]
fn man_headings_name_only_real_options() {
    let man = committed_man();
    let cmd = command();
    let exists = |opt: &str| match opt.strip_prefix("--") {
        Some(long) => cmd.get_arguments().any(|a| a.get_long() == Some(long)),
        None => {
            let short = opt.trim_start_matches('-').chars().next();
            cmd.get_arguments().any(|a| a.get_short() == short)
        }
    };
    let headings: Vec<&str> = man.lines().filter(|l| l.starts_with(".SH ")).collect();
    assert!(headings.len() > 10, "{headings:?}");
    for heading in headings {
        let words = heading.replace('\\', "");
        for word in words.split([' ', '"', '(', ')', ',']) {
            if word.starts_with('-') {
                assert!(exists(word), "{heading}: names {word}, no such option");
            }
        }
    }
}

/// The examples (`-h`'s and the man page's) show the options of everyday
/// runs beyond hashing: a signed check, a tree's exclusions, its update
/// and its audit.
#[test]
fn examples_show_the_everyday_options() {
    let man = committed_man();
    let examples = man
        .split("\n.SH EXAMPLES\n")
        .nth(1)
        .and_then(|rest| rest.split("\n.SH ").next())
        .unwrap_or_default();
    let section = HELP_SECTIONS.iter().find(|s| s.title == "Examples");
    assert!(section.is_some_and(|s| s.short), "-h shows the examples");
    for option in ["--verify-with", "--exclude", "--update", "--audit"] {
        assert!(section.is_some_and(|s| s.text.contains(option)), "{option}");
        assert!(examples.contains(&option.replace('-', "\\-")), "{option}");
    }
}

/// `man` renders the committed page without a single groff warning.
#[test]
fn man_renders_cleanly() {
    if !require_tool("man") {
        return;
    }
    let page = root().join("man/fastsum.1");
    let out = Command::new("man")
        .args(["--warnings", "-l"])
        .arg(&page)
        .env("MANWIDTH", "80")
        .env("MAN_KEEP_FORMATTING", "0")
        .env("LC_ALL", "C.UTF-8")
        .bounded_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "groff warnings");
    let text = without_overstrike(&String::from_utf8_lossy(&out.stdout));
    for heading in ["EXIT STATUS", "READING MODES", "ENVIRONMENT", "CHECK FILES"] {
        assert!(text.contains(&format!("\n{heading}\n")), "{text}");
    }
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "wider than 80 columns: {line:?}"
        );
    }
    // groff on its own (no preconv) reads the page as Latin-1: it must
    // still find nothing to warn about
    if require_tool("groff") {
        let out = Command::new("groff")
            .args(["-ww", "-man", "-z"])
            .arg(&page)
            .bounded_output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "groff -ww warnings"
        );
    }
}

/// Plain text from man's terminal output, which draws bold as `c\bc` and
/// underline as `_\bc` (what `col -b` does).
fn without_overstrike(s: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    for c in s.chars() {
        if c == '\u{8}' {
            out.pop();
            continue;
        }
        out.push(c);
    }
    // the character after a backspace replaced the one before it
    out.into_iter().collect()
}

/// The committed completion scripts parse in their shells.
#[test]
fn completions_parse() {
    for (shell, args, rel) in [
        ("bash", &["-n"][..], "completions/fastsum.bash"),
        ("zsh", &["-n"][..], "completions/_fastsum"),
        ("fish", &["--no-execute"][..], "completions/fastsum.fish"),
    ] {
        if !require_tool(shell) {
            continue;
        }
        let path: &Path = &root().join(rel);
        let out = Command::new(shell)
            .args(args)
            .arg(path)
            .bounded_output()
            .unwrap();
        assert!(
            out.status.success(),
            "{rel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
