//! The MD5 kernel switch (`FASTSUM_MD5`): the binary prints the same bytes
//! whichever kernel it uses, and the same as GNU md5sum.

use fastsum::internals::Algorithm;

use crate::util::{Pair, assert_output, fastsum, files_of_sizes, run, tempdir};

/// Sizes around block and padding boundaries, and a large one.
const SIZES: [usize; 12] = [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 4096, 3 << 20];

#[test]
fn every_kernel_prints_what_md5sum_prints() {
    let dir = tempdir();
    let Some(md5) = Pair::new(dir.path(), Algorithm::Md5) else {
        return;
    };
    let files = files_of_sizes(dir.path(), &SIZES, 0);
    let mut kernels = vec![None, Some("portable"), Some("auto"), Some("")];
    if cfg!(target_arch = "x86_64") {
        kernels.push(Some("asm"));
    }
    for kernel in kernels {
        let want = md5.assert_same_under([[""; 0]], &files, |c| {
            match kernel {
                Some(k) => c.env("FASTSUM_MD5", k),
                None => c.env_remove("FASTSUM_MD5"),
            };
            run(c)
        });
        assert_eq!(want.status.code(), Some(0), "FASTSUM_MD5={kernel:?}");
    }
}

#[test]
fn unknown_kernel_is_a_usage_error() {
    let o = run(fastsum().env("FASTSUM_MD5", "sse9").arg("/dev/null"));
    let asm = if cfg!(target_arch = "x86_64") {
        " or asm"
    } else {
        ""
    };
    let err = format!(
        "fastsum: invalid FASTSUM_MD5 value \"sse9\": expected auto, portable{asm}\n\
         Try 'fastsum --help' for more information.\n"
    );
    assert_output("FASTSUM_MD5=sse9", &o, b"", &err, 2);
}
