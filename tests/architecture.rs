//! The module structure stays as docs/ARCHITECTURE.md describes it: module
//! dependencies point one way (no cycle among sibling modules), only the
//! command-line layer knows clap, and only the platform room the OS.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every source file of the library as (module path, its code but its
/// test modules: [`code_of`]).
fn modules() -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|l| l == "mod") {
                parts.pop();
            }
            if parts == ["lib"] || parts == ["main"] {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((parts, code_of(&text)));
        }
    }
    out
}

/// A file's text without its test modules (`#[cfg(test)] mod NAME { … }`
/// or `mod NAME;`): everything else is checked, items under `cfg(test)`
/// outside them and whatever follows them included.
fn code_of(text: &str) -> String {
    const TEST: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(TEST) {
        let after = &rest[i + TEST.len()..];
        let item = after.trim_start();
        if item.starts_with("mod ") {
            out.push_str(&rest[..i]);
            rest = &item[module_len(item)..];
        } else {
            out.push_str(&rest[..i + TEST.len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The length of the module item `s` starts with: up to its `;`, or to the
/// brace that closes its body (braces in string and character literals
/// and comments do not count).
fn module_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b';' if depth == 0 => return i + 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The guard reads past a file's test module: a use placed after it, or
/// in a `cfg(test)` item before it, is seen; the module's own are not.
#[test]
fn the_guard_reads_whole_files() {
    let text = r#"
use crate::algo::Digest;
#[cfg(test)]
fn helper() -> &'static str { "}" }
#[cfg(test)]
mod tests {
    use crate::cli::Options;
    fn f() { let _ = ('{', "{{", '}'); } // }
}
use crate::report::Exit;
"#;
    let code = code_of(text);
    assert!(!code.contains("crate::cli"), "{code}");
    for seen in ["crate::algo", "fn helper", "crate::report::Exit"] {
        assert!(code.contains(seen), "{seen} not seen in:\n{code}");
    }
    let known: BTreeSet<Vec<String>> = [["report"], ["algo"], ["cli"]]
        .iter()
        .map(|m| m.iter().map(|s| s.to_string()).collect())
        .collect();
    let refs = references(&["hash".to_string()], &code, &known);
    assert!(refs.contains(&vec!["report".to_string()]), "{refs:?}");
    // and in the tree: lines past a first cfg(test) item are read (the
    // walk's tree has one, `Start::Eager`, above the walk itself)
    let tree = modules()
        .into_iter()
        .find(|(m, _)| m == &["walk", "tree"])
        .expect("src/walk/tree.rs");
    let first = tree.1.find("#[cfg(test)]").expect("a cfg(test) item");
    assert!(
        tree.1[first..].contains("impl Iterator for Tree"),
        "{} lines of walk/tree.rs read",
        tree.1.lines().count()
    );
}

/// The module paths a file's code names: `crate::a::b…` and `super::…`.
fn references(
    module: &[String],
    code: &str,
    known: &BTreeSet<Vec<String>>,
) -> BTreeSet<Vec<String>> {
    let mut refs = BTreeSet::new();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    for (start, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if start > 0 && code[..start].ends_with(|c: char| is_ident(c) || c == ':') {
            continue;
        }
        let path: Vec<&str> = code[start..]
            .split(|c: char| !(is_ident(c) || c == ':'))
            .next()
            .unwrap_or("")
            .split("::")
            .filter(|s| !s.is_empty())
            .collect();
        let mut base: Vec<String> = Vec::new();
        let mut rest = path.as_slice();
        if rest.first() == Some(&"crate") {
            rest = &rest[1..];
        } else {
            // the file's parent module (a mod.rs file is its own module)
            base = module.to_vec();
            while rest.first() == Some(&"super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        // `use crate::a::{b, c}` names a and its children: count a
        let mut full = base.clone();
        let mut best = None;
        for seg in rest {
            full.push(seg.to_string());
            if known.contains(&full) {
                best = Some(full.clone());
            }
        }
        if let Some(b) = best {
            refs.insert(b);
        }
    }
    refs
}

#[test]
fn no_cycle_among_sibling_modules() {
    let mods = modules();
    let known: BTreeSet<Vec<String>> = mods.iter().map(|(m, _)| m.clone()).collect();
    // edges between siblings: lift both ends to the children of their
    // common ancestor (a module using its own parent or child is not a cycle)
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (m, code) in &mods {
        for r in references(m, code, &known) {
            let common = m.iter().zip(&r).take_while(|(a, b)| a == b).count();
            if common == m.len() || common == r.len() {
                continue;
            }
            let from = m[..=common].to_vec();
            let to = r[..=common].to_vec();
            edges.entry(from).or_default().insert(to);
        }
    }
    // depth-first search for a back edge
    fn visit(
        n: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        path: &mut Vec<Vec<String>>,
    ) {
        match state.get(n) {
            Some(2) => return,
            Some(1) => {
                let at = path.iter().position(|p| p == n).unwrap();
                let cycle: Vec<String> = path[at..].iter().map(|p| p.join("::")).collect();
                panic!("module cycle: {} -> {}", cycle.join(" -> "), n.join("::"));
            }
            _ => {}
        }
        state.insert(n.clone(), 1);
        path.push(n.clone());
        for next in edges.get(n).into_iter().flatten() {
            visit(next, edges, state, path);
        }
        path.pop();
        state.insert(n.clone(), 2);
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        visit(n, &edges, &mut state, &mut Vec::new());
    }
    // the check itself must see the layering it guards
    let read = vec!["read".to_string()];
    assert!(edges[&vec!["cli".to_string()]].contains(&read), "{edges:?}");
}

#[test]
fn only_the_cli_knows_clap() {
    for (m, code) in modules() {
        if m.first().is_some_and(|f| f == "cli") {
            continue;
        }
        assert!(
            !code.contains("clap::") && !code.contains("use clap"),
            "{} uses clap: only src/cli may",
            m.join("::")
        );
    }
}

/// A check dialect is told from another in one room, as an output style
/// is: a flavour's row in `cli/name.rs` names its grammar, and what the
/// grammar reads by (`config::Dialect`, a struct: no variant per tool) is
/// chosen in `cli`; the `Feed`, the `Verifier`, the summary and the
/// writers follow the grammar's rules. No `Dialect::` outside `cli/`,
/// `config.rs` and the grammars, should it grow variants again.
#[test]
fn only_the_cli_and_the_grammars_tell_dialects_apart() {
    for (m, code) in modules() {
        let allowed = matches!(
            m.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ["cli", ..] | ["config"] | ["command", "check", "grammar", ..]
        );
        assert!(
            allowed || !code.contains("Dialect::"),
            "{} tests the check dialect (Dialect::): only cli/ and the grammars \
             (src/command/check/grammar/) may",
            m.join("::")
        );
    }
}

/// A tool's grammar is named in one place, its flavour's row: each file of
/// `src/command/check/grammar/` has a `make` (its `grammar::Make`), which
/// `cli/name.rs` names and no other module outside the grammars does, so
/// a new tool name with a grammar of its own is its row, its grammar's
/// file (declared in `grammar/mod.rs`) and its tests: no arm in a match
/// elsewhere (docs/ARCHITECTURE.md, "Adding a tool name").
#[test]
fn only_the_flavour_rows_name_a_grammar() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let folder = src.join("command/check/grammar");
    let grammars: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|stem| stem != "mod")
        .collect();
    assert!(
        grammars.len() >= 3,
        "GNU's, b3sum's, xxhsum's: {grammars:?}"
    );
    let rows = code_of(&std::fs::read_to_string(src.join("cli/name.rs")).unwrap());
    for g in &grammars {
        let text = std::fs::read_to_string(folder.join(format!("{g}.rs"))).unwrap();
        assert!(
            text.contains("pub(crate) fn make("),
            "check/grammar/{g}.rs has no `make` (a grammar::Make) for a flavour's row"
        );
        assert!(
            rows.contains(&format!("grammar::{g}::make")),
            "no flavour's row (cli/name.rs) names check/grammar/{g}.rs's grammar"
        );
    }
    for (m, code) in modules() {
        let allowed = matches!(
            m.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ["cli", "name"] | ["command", "check", "grammar", ..]
        );
        for g in &grammars {
            assert!(
                allowed || !code.contains(&format!("{g}::make")),
                "{} names the grammar {g}: only a flavour's row (cli/name.rs) may",
                m.join("::")
            );
        }
    }
}

/// Every source file of the library, test modules included: its path
/// below `src/` and its whole text.
fn sources() -> Vec<(std::path::PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.strip_prefix(&src).unwrap().to_path_buf(), text));
            }
        }
    }
    out
}

/// Does this line of code (its comment off) hold an OS error by its
/// number: a literal or a constant where an `io::Error` is made from or
/// matched with its raw OS code? What a number means is the OS's (20 is
/// ENOTDIR on Linux, "cannot find the device" on Windows).
fn errno_by_number(code: &str) -> bool {
    code.contains("raw_os_error")
        && code
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|token| {
                let errno = token.len() > 2
                    && token.starts_with('E')
                    && token
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
                errno
                    || token.starts_with(|c: char| c.is_ascii_digit())
                    || token.starts_with("ERROR_")
            })
}

/// The platform room holds every OS call: no `libc::` or `windows_sys::`
/// outside `src/sys/`, tests included, and no OS error by its number
/// ([`errno_by_number`]): `sys` makes and recognises them, in each OS's
/// terms.
#[test]
fn only_the_platform_room_calls_the_os() {
    let mut seen_in_sys = false;
    for (path, text) in sources() {
        let in_sys = path.starts_with("sys");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or(line);
            let os_crate = ["libc::", "use libc", "windows_sys::", "use windows_sys"]
                .iter()
                .any(|c| code.contains(c));
            seen_in_sys |= in_sys && os_crate;
            if in_sys {
                continue;
            }
            let place = format!("src/{}:{}: {}", path.display(), n + 1, line.trim());
            assert!(!os_crate, "{place}: an OS call outside src/sys/");
            assert!(
                !errno_by_number(code),
                "{place}: an OS error by number outside src/sys/"
            );
        }
    }
    // the check itself must see the room it guards
    assert!(seen_in_sys);
    assert!(errno_by_number("io::Error::from_raw_os_error(20)"));
    assert!(errno_by_number("e.raw_os_error() == Some(EMFILE)"));
    assert!(!errno_by_number(
        "Some(n) => io::Error::from_raw_os_error(n),"
    ));
}

/// docs/ARCHITECTURE.md's layer table, top to bottom: each row's top-level
/// modules, named in backticks in its second column (file names such as
/// `cli/options.rs` may stand beside them).
fn layer_table() -> Vec<(String, Vec<String>)> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md");
    let doc = std::fs::read_to_string(doc).unwrap();
    let table = doc
        .split("## Layers")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a Layers section");
    table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and rule
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let mut names: Vec<String> = cells[2]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|n| n.trim_end_matches(".rs").trim_end_matches('/').to_string())
                .filter(|n| {
                    n.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                })
                .collect();
            names.dedup();
            (cells[1].to_string(), names)
        })
        .collect()
}

/// The layer table is the code's: every top-level module is in exactly
/// one row, and a module uses only modules of its own row or rows below
/// (the edge, lib.rs and main.rs, above them all).
#[test]
fn modules_use_only_their_layer_and_below() {
    let table = layer_table();
    let mods = modules();
    let known: BTreeSet<Vec<String>> = mods.iter().map(|(m, _)| m.clone()).collect();
    let mut layer_of: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (_, names)) in table.iter().enumerate() {
        for n in names {
            assert!(
                layer_of.insert(n.clone(), i).is_none(),
                "{n} is in two rows of docs/ARCHITECTURE.md's layer table"
            );
        }
    }
    let tops: BTreeSet<&String> = mods.iter().map(|(m, _)| &m[0]).collect();
    for top in &tops {
        assert!(
            layer_of.contains_key(*top),
            "module {top} is in no row of docs/ARCHITECTURE.md's layer table"
        );
    }
    for listed in layer_of.keys() {
        assert!(
            tops.contains(listed),
            "docs/ARCHITECTURE.md's layer table names {listed}, which is no module"
        );
    }
    let mut upward = Vec::new();
    for (m, code) in &mods {
        for r in references(m, code, &known) {
            let (from, to) = (&m[0], &r[0]);
            if layer_of[to] < layer_of[from] {
                upward.push(format!(
                    "{} ({}) uses {} ({})",
                    m.join("::"),
                    table[layer_of[from]].0,
                    r.join("::"),
                    table[layer_of[to]].0
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "uses that point up:\n{}",
        upward.join("\n")
    );
    // the check must see the uses it guards: cli uses read, below it
    assert!(layer_of["cli"] < layer_of["read"], "{table:?}");
}
