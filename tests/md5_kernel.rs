//! The MD5 kernel switch (`FASTSUM_MD5`): the binary prints the same bytes
//! whichever kernel it uses, and the same as GNU md5sum.

use crate::util::{assert_same, fastsum, gnu, random_bytes, require_tool, write_file};

/// Files of sizes around block and padding boundaries, and a large one.
fn corpus(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 4096, 3 << 20]
        .into_iter()
        .enumerate()
        .map(|(i, len)| write_file(dir, format!("f{len}"), &random_bytes(len, i as u64)))
        .collect()
}

#[test]
fn every_kernel_prints_what_md5sum_prints() {
    let dir = tempfile::tempdir().unwrap();
    let files = corpus(dir.path());
    let auto = fastsum().args(&files).output().unwrap();
    assert_eq!(auto.status.code(), Some(0));
    let asm: &[&str] = if cfg!(target_arch = "x86_64") {
        &["asm"]
    } else {
        &[]
    };
    for &kernel in ["portable", "auto", ""].iter().chain(asm) {
        let o = fastsum()
            .env("FASTSUM_MD5", kernel)
            .args(&files)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "FASTSUM_MD5={kernel}");
        assert_eq!(o.stdout, auto.stdout, "FASTSUM_MD5={kernel}");
        assert!(o.stderr.is_empty(), "FASTSUM_MD5={kernel}");
    }
    if require_tool("md5sum") {
        let mut ours = fastsum();
        ours.env("FASTSUM_MD5", "portable").args(&files);
        let mut theirs = gnu("md5sum");
        theirs.args(&files);
        assert_same(ours, theirs, "fastsum", "md5sum");
    }
}

#[test]
fn unknown_kernel_is_a_usage_error() {
    let o = fastsum()
        .env("FASTSUM_MD5", "sse9")
        .arg("/dev/null")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "fastsum: invalid FASTSUM_MD5 value \"sse9\": expected auto, portable{}\n\
             Try 'fastsum --help' for more information.\n",
            if cfg!(target_arch = "x86_64") {
                " or asm"
            } else {
                ""
            }
        )
    );
}
