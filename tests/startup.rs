//! One call on one small file starts fast (issue 45 item 3): on Linux with
//! glibc the functions such a call runs are linked side by side
//! (link/startup.ld, passed by build.rs), so that their first calls fault in
//! a few 64 KiB stretches of code instead of ~25; built on glibc 2.36 or
//! later its relative relocations are packed; std's unwinder is linked in.
//! Read from the built binary's ELF tables; the timing itself is
//! benches/percall.sh's.

/// An ELF64 little-endian file's sections (name, address, size), its
/// function symbols (name, address) and the libraries it needs.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
struct Elf {
    sections: Vec<(String, u64, u64)>,
    functions: Vec<(String, u64)>,
    needed: Vec<String>,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
impl Elf {
    fn read(path: &std::path::Path) -> Elf {
        let b = std::fs::read(path).unwrap();
        assert_eq!(&b[..6], b"\x7fELF\x02\x01", "an ELF64 little-endian file");
        let n =
            |at: usize, len: usize| (0..len).fold(0u64, |v, i| v | u64::from(b[at + i]) << (8 * i));
        let at = |v: u64| usize::try_from(v).unwrap();
        let (shoff, shentsize, shnum) = (at(n(0x28, 8)), at(n(0x3a, 2)), at(n(0x3c, 2)));
        let header = |i: usize| shoff + i * shentsize;
        let cstr = |from: usize| {
            let end = from + b[from..].iter().position(|&c| c == 0).unwrap();
            String::from_utf8_lossy(&b[from..end]).into_owned()
        };
        let names = at(n(header(at(n(0x3e, 2))) + 0x18, 8));
        let mut elf = Elf {
            sections: Vec::new(),
            functions: Vec::new(),
            needed: Vec::new(),
        };
        for i in 0..shnum {
            let h = header(i);
            let name = cstr(names + at(n(h, 4)));
            elf.sections.push((name, n(h + 0x10, 8), n(h + 0x20, 8)));
            let strings = || at(n(header(at(n(h + 0x28, 4))) + 0x18, 8));
            // SHT_DYNAMIC: 16-byte entries, DT_NEEDED's (1) value a name
            if n(h + 4, 4) == 6 {
                let (off, size) = (at(n(h + 0x18, 8)), at(n(h + 0x20, 8)));
                for d in (off..off + size).step_by(16) {
                    if n(d, 8) == 1 {
                        elf.needed.push(cstr(strings() + at(n(d + 8, 8))));
                    }
                }
            }
            // SHT_SYMTAB: 24-byte entries, names in the section it links to
            if n(h + 4, 4) == 2 {
                let (off, size) = (at(n(h + 0x18, 8)), at(n(h + 0x20, 8)));
                for s in (off..off + size).step_by(24) {
                    // STT_FUNC
                    if b[s + 4] & 0xf == 2 {
                        elf.functions
                            .push((cstr(strings() + at(n(s, 4))), n(s + 8, 8)));
                    }
                }
            }
        }
        elf
    }
}

/// `name` matches the linker script pattern `pattern` (`*`: any run).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn glob(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head) && (head.len()..=name.len()).any(|i| glob(tail, &name[i..]))
        }
    }
}

/// The script's patterns: the first of each `*(.text.PATTERN …)` line.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn patterns() -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/link/startup.ld");
    std::fs::read_to_string(script)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("*(.text.")?.split(' ').next())
        .map(str::to_string)
        .collect()
}

/// The start-up functions are in their own section at the head of the
/// code: `main` and the option parsing among them.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn start_up_functions_are_side_by_side() {
    let elf = Elf::read(&crate::util::fastsum_path());
    let &(_, start, size) = elf
        .sections
        .iter()
        .find(|(name, ..)| name == ".text.fastsum_start")
        .expect("a .text.fastsum_start section: build.rs passes link/startup.ld");
    let inside = |prefix: &str| {
        elf.functions
            .iter()
            .any(|(f, a)| f.starts_with(prefix) && (start..start + size).contains(a))
    };
    assert!(inside("main"), "main in .text.fastsum_start");
    assert!(
        inside("_ZN7fastsum3cli4argv10parse_args17h"),
        "cli::argv::parse_args in .text.fastsum_start"
    );
}

/// Every pattern that names one of fastsum's own functions without its
/// hash still names one (an instance of a generic function, named with
/// its hash, is this build's only): a function renamed on the start-up
/// path fails here until benches/startup-order.sh is run again.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn startup_script_names_live_functions() {
    let elf = Elf::read(&crate::util::fastsum_path());
    let own: Vec<String> = patterns()
        .into_iter()
        .filter(|p| p.starts_with("_ZN7fastsum") && p.ends_with("17h*E"))
        .collect();
    assert!(own.len() >= 20, "the script lists fastsum's own functions");
    let stale: Vec<&String> = own
        .iter()
        .filter(|p| !elf.functions.iter().any(|(f, _)| glob(p, f)))
        .collect();
    assert!(stale.is_empty(), "run benches/startup-order.sh: {stale:?}");
}

/// Built on glibc 2.36 or later, the binary's relative relocations are
/// packed (DT_RELR: the `.relr.dyn` section), which the loader reads in a
/// fraction of the time of ~3,200 24-byte entries.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn relative_relocations_are_packed() {
    let out = std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let minor = text
        .trim()
        .strip_prefix("glibc 2.")
        .and_then(|m| m.parse::<u32>().ok());
    if minor.is_none_or(|m| m < 36) {
        return;
    }
    let elf = Elf::read(&crate::util::fastsum_path());
    assert!(
        elf.sections.iter().any(|(name, ..)| name == ".relr.dyn"),
        "a .relr.dyn section: build.rs passes -z pack-relative-relocs"
    );
}

/// std's unwinder is linked in (libgcc_eh.a), not loaded: the binary needs
/// libc alone, one library fewer to map and search at every start.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn unwinder_is_linked_in() {
    let elf = Elf::read(&crate::util::fastsum_path());
    let needs = |lib: &str| elf.needed.iter().any(|l| l.starts_with(lib));
    assert!(needs("libc.so"), "{:?}", elf.needed);
    assert!(
        !needs("libgcc_s"),
        "build.rs links libgcc_eh.a: {:?}",
        elf.needed
    );
}
