//! The progress line on a terminal (issue 11): run fastsum in a pty made by
//! `script`, keep the raw bytes it wrote, and check them frame by frame and
//! on a small emulated screen.
//!
//! A frame is what indicatif draws between two erases (`\r\x1b[2K`):
//! `N[/M] files done[/[~]total] [rate/s] [ETA m:ss | m:ss] [[===>  ]]`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::require_tool;
use crate::util::{fastsum_path, tempdir};

/// The erase sequence that starts every redraw and ends the display.
const ERASE: &str = "\r\x1b[2K";

/// Run `cmd` with `sh` in a pty `cols` columns wide, in `dir`; the raw
/// terminal output and the wall time. SIGHUP, SIGINT and SIGTERM start at
/// their default action, whatever the test's parent set (`nohup cargo test
/// &` ignores SIGHUP and SIGINT, and an ignored signal stays ignored
/// through exec, so a test that kills fastsum with one would wait forever);
/// the run is bounded ([`crate::util::run`]).
pub(crate) fn in_pty(dir: &Path, cols: u16, cmd: &str) -> (String, Duration) {
    use std::os::unix::process::CommandExt;
    let bin = fastsum_path();
    let cmd = format!("stty cols {cols} rows 24; F={}; {cmd}", bin.display());
    let mut script = Command::new("script");
    script
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .args(["-qfec", &cmd, "/dev/null"]);
    // SAFETY: signal(2) only, between fork and exec
    unsafe {
        script.pre_exec(|| {
            for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    let t = Instant::now();
    let got = crate::util::run(&mut script);
    let wall = t.elapsed();
    (String::from_utf8_lossy(&got.stdout).into_owned(), wall)
}

/// One progress frame, as parsed from the screen text.
#[derive(Debug)]
pub(crate) struct Frame {
    pub text: String,
    /// Inputs done, and how many there are when known.
    pub files: u64,
    pub files_total: Option<u64>,
    pub done: f64,
    pub total: Option<f64>,
    pub rate: Option<f64>,
}

/// `738.00 MiB`, `0 B`, … in bytes.
fn bytes(s: &str) -> Option<f64> {
    let (n, unit) = s.trim().split_once(' ')?;
    let n: f64 = n.parse().ok()?;
    let mult = match unit {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(n * mult)
}

/// The progress frames in raw terminal output, in order.
pub(crate) fn frames(raw: &str) -> Vec<Frame> {
    raw.split("\x1b[2K")
        .filter_map(|seg| {
            let text = seg.trim_start_matches(['\r', '\n']);
            let text = text.split(['\r', '\n']).next()?.trim_end();
            let words: Vec<&str> = text.split(' ').collect();
            // "N[/M] files" first
            let [count, "files", words @ ..] = &words[..] else {
                return None;
            };
            let (files, files_total) = match count.split_once('/') {
                Some((n, m)) => (n.parse().ok()?, Some(m.parse().ok()?)),
                None => (count.parse().ok()?, None),
            };
            // then done is "N UNIT" possibly followed by "/[~]N UNIT" (none
            // on a narrow terminal)
            if words.len() < 2 {
                let text = text.to_string();
                let (done, total, rate) = (0.0, None, None);
                return Some(Frame {
                    text,
                    files,
                    files_total,
                    done,
                    total,
                    rate,
                });
            }
            let first = format!("{} {}", words[0], words[1]);
            let (done, total, rest) = match first.split_once('/') {
                Some((d, t)) if words.len() >= 3 => {
                    let total = bytes(&format!("{} {}", t.trim_start_matches('~'), words[2]))?;
                    (bytes(d)?, Some(total), &words[3..])
                }
                _ => (bytes(&first)?, None, &words[2..]),
            };
            let rate = match rest {
                [n, u, ..] if u.ends_with("/s") => bytes(&format!("{n} {}", &u[..u.len() - 2])),
                _ => None,
            };
            Some(Frame {
                text: text.to_string(),
                files,
                files_total,
                done,
                total,
                rate,
            })
        })
        .collect()
}

/// What `raw` leaves on a terminal `cols` wide: its lines (trailing blanks
/// trimmed) and whether any line had to wrap. Knows what indicatif and the
/// pty write: printable text, `\r`, `\n`, `ESC[nA/B/C/D`, `ESC[nK`.
pub(crate) fn screen(raw: &str, cols: usize) -> (Vec<String>, bool) {
    let mut lines: Vec<Vec<char>> = vec![vec![]];
    let (mut row, mut col, mut wrapped) = (0usize, 0usize, false);
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => col = 0,
            '\n' => {
                row += 1;
                if lines.len() <= row {
                    lines.push(vec![]);
                }
            }
            '\x1b' => {
                if chars.peek() != Some(&'[') {
                    continue;
                }
                chars.next();
                let mut param = String::new();
                let mut fin = ' ';
                for c in chars.by_ref() {
                    if c.is_ascii_digit() || c == ';' || c == '?' {
                        param.push(c);
                    } else {
                        fin = c;
                        break;
                    }
                }
                let n: usize = param.parse().unwrap_or(0);
                let line = &mut lines[row];
                match fin {
                    'A' => row = row.saturating_sub(n.max(1)),
                    'B' => {
                        row += n.max(1);
                        while lines.len() <= row {
                            lines.push(vec![]);
                        }
                    }
                    'C' => col = (col + n.max(1)).min(cols),
                    'D' => col = col.saturating_sub(n.max(1)),
                    'K' => match n {
                        0 => line.truncate(col),
                        1 => line.iter_mut().take(col + 1).for_each(|c| *c = ' '),
                        _ => line.clear(),
                    },
                    _ => {}
                }
            }
            c if c < ' ' => {}
            c => {
                if col >= cols {
                    wrapped = true;
                    col = 0;
                    row += 1;
                    if lines.len() <= row {
                        lines.push(vec![]);
                    }
                }
                let line = &mut lines[row];
                if line.len() <= col {
                    line.resize(col + 1, ' ');
                }
                line[col] = c;
                col += 1;
            }
        }
    }
    let lines = lines
        .into_iter()
        .map(|l| l.into_iter().collect::<String>().trim_end().to_string())
        .collect();
    (lines, wrapped)
}

/// A sparse file of `len` bytes (hashes fast, costs no disk).
fn sparse(dir: &Path, name: &str, len: u64) {
    let f = std::fs::File::create(dir.join(name)).unwrap();
    f.set_len(len).unwrap();
}

const MIB: u64 = 1 << 20;

/// The first frame after the one-second delay shows the real rate, not the
/// first second's bytes as if they came in one tick (it showed TiB/s). The
/// input is a pipe throttled by the shell, so the run lasts about 3 s on any
/// machine; its real rate is what came through over the wall time.
#[test]
fn first_frame_shows_the_real_rate() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    let chunks = 30;
    let cmd = format!(
        "for i in $(seq {chunks}); do head -c 8388608 /dev/zero; sleep 0.1; done | $F -a sha256 -"
    );
    let (raw, wall) = in_pty(t.path(), 100, &cmd);
    let real = (chunks * 8 * MIB) as f64 / wall.as_secs_f64();
    let frames = frames(&raw);
    let first = frames
        .first()
        .unwrap_or_else(|| panic!("no frame: {raw:?}"));
    let rate = first
        .rate
        .unwrap_or_else(|| panic!("no rate in the first frame {first:?}"));
    assert!(
        rate < 10.0 * real && rate > real / 10.0,
        "first frame {first:?}, real rate {real:.0} B/s"
    );
    for f in &frames {
        let r = f.rate.unwrap_or(0.0);
        assert!(r < 10.0 * real, "frame {f:?}, real rate {real:.0} B/s");
    }
}

/// Run each `(arguments, bytes hashed)` with `--progress` in a pty: some
/// frame must show a count strictly between 0 and the end (the line moves),
/// no frame a rate over 10x the real one, and the line is erased at the end.
fn assert_the_line_moves(dir: &Path, cases: &[(&str, u64)]) {
    for &(args, size) in cases {
        let (raw, wall) = in_pty(dir, 100, &format!("$F --progress {args}"));
        let frames = frames(&raw);
        let moving = frames
            .iter()
            .filter(|f| f.done > 0.0 && f.done < size as f64)
            .count();
        assert!(moving > 0, "{args}: the line never moved: {frames:?}");
        let real = size as f64 / wall.as_secs_f64();
        for f in &frames {
            let r = f.rate.unwrap_or(0.0);
            assert!(
                r < 10.0 * real,
                "{args}: frame {f:?}, real rate {real:.0} B/s"
            );
        }
        assert!(raw.ends_with(ERASE), "{args}: line left: {raw:?}");
    }
}

/// Write the check file `name` for `file` hashed with `algo`.
fn sums(dir: &Path, name: &str, algo: &str, file: &str) {
    let got = crate::util::run(crate::util::fastsum().current_dir(dir).args([
        "-a",
        algo,
        "--untagged",
        file,
    ]));
    assert!(got.status.success());
    std::fs::write(dir.join(name), &got.stdout).unwrap();
}

/// Every path that hashes a mapped file counts its bytes as it goes, so the
/// line moves (it showed `0 B/4.00 GiB 0 B/s` throughout): mmap mode, BLAKE3
/// mapped on every core in threaded mode, and both in check mode.
#[test]
fn the_line_moves_while_a_mapped_file_is_hashed() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    sparse(t.path(), "s1", 1 << 30);
    sparse(t.path(), "b2", 2 << 30);
    sums(t.path(), "SUMS", "sha256", "s1");
    sums(t.path(), "B3SUMS", "blake3", "b2");
    assert_the_line_moves(
        t.path(),
        &[
            ("-m mmap -a sha256 s1", 1 << 30),
            ("-a blake3 b2", 2 << 30),
            ("-m mmap -a blake3 b2", 2 << 30),
            ("-c -m mmap -a sha256 SUMS", 1 << 30),
            ("-c -a blake3 B3SUMS", 2 << 30),
        ],
    );
}

/// The reading modes count their bytes too: threaded blocks, sync chunks,
/// bytewise batches, and threaded in check mode.
#[test]
fn the_line_moves_in_every_reading_mode() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    sparse(t.path(), "h", 512 * MIB);
    sparse(t.path(), "w", 16 * MIB);
    sums(t.path(), "SUMS", "sha256", "h");
    assert_the_line_moves(
        t.path(),
        &[
            ("-m threaded -a sha256 h", 512 * MIB),
            ("-m sync -a sha256 h", 512 * MIB),
            ("-m bytewise -a sha1 w", 16 * MIB),
            ("-c -m threaded -a sha256 SUMS", 512 * MIB),
        ],
    );
}

/// Run `args` with `--progress` in a pty: the frames, after checking that
/// some frame counts files strictly between 0 and `files` out of `files`
/// with an ETA, and that none counts past it.
fn counted(dir: &Path, args: &str, files: u64) -> Vec<Frame> {
    let (raw, _) = in_pty(dir, 120, &format!("$F --progress {args} >/dev/null"));
    let frames = frames(&raw);
    assert!(
        frames.iter().any(|f| f.files > 0
            && f.files < files
            && f.files_total == Some(files)
            && f.text.contains(" ETA ")),
        "{args}: no frame of N/{files} files with an ETA: {frames:#?}"
    );
    for f in &frames {
        assert!(f.files <= files, "{args}: {f:?}");
    }
    frames
}

/// Check, audit and update runs count files done of the files to come,
/// with an ETA (issue 46): `-c` the lines of its manifest, `--audit` the
/// listed files and the new ones, `--update` the new ones. The bytes to come
/// are reckoned from the files done (`~`), or known where the run stats its
/// files (`--update`, `-r`).
#[test]
fn check_audit_and_update_count_files_with_an_eta() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    let d = t.path();
    std::fs::create_dir(d.join("t")).unwrap();
    let names: Vec<String> = (0..12).map(|i| format!("t/f{i:02}")).collect();
    // (each set big enough that a run over it lasts past the first frames
    // with a rate and an ETA, 0.3 s, on a fast or a loaded machine: CI's
    // machine checked 8 x 64 MiB at 1.5 GiB/s and was done before then)
    for (i, n) in names.iter().enumerate() {
        sparse(d, n, if i < 8 { 256 * MIB } else { 512 * MIB });
    }
    let listed = names[..8].join(" ");
    let got = crate::util::run(
        crate::util::fastsum()
            .current_dir(d)
            .args(["-a", "md5"])
            .args(&names[..8]),
    );
    std::fs::write(d.join("SUMS"), &got.stdout).unwrap();
    std::fs::write(d.join("NEW"), &got.stdout).unwrap();
    let frames = counted(d, "-c SUMS", 8);
    assert!(frames.iter().any(|f| f.text.contains("/~")), "{frames:#?}");
    counted(d, "-c SUMS --audit t", 12);
    let frames = counted(d, "-a md5 -r --update NEW t", 4);
    assert!(
        frames
            .iter()
            .any(|f| f.total == Some((4 * 512 * MIB) as f64)),
        "{frames:#?}"
    );
    counted(d, &format!("-a md5 {listed}"), 8);
    // a check file that is a FIFO is read by the check alone: no count
    let (raw, _) = in_pty(d, 120, "mkfifo P; cat SUMS > P & $F --progress -c P > out");
    let out = std::fs::read_to_string(d.join("out")).unwrap();
    assert_eq!(out.matches(": OK\n").count(), 8, "{out} {raw:?}");
    assert!(
        self::frames(&raw).iter().all(|f| f.files_total.is_none()),
        "{raw:?}"
    );
}

/// The line is redrawn once a tick (10 times a second) at most however
/// much a run writes to a file: the lines of a check go around the bar
/// only when stdout is a terminal (each buffer of `OK` lines written to a
/// file erased and redrew it). The manifest lists one empty file 20,000
/// times under a long name: 4 MiB of output from a short run.
#[test]
fn writes_to_a_file_do_not_redraw_the_line() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    let d = t.path();
    let name = "n".repeat(200);
    std::fs::write(d.join(&name), b"").unwrap();
    let line = format!("d41d8cd98f00b204e9800998ecf8427e  {name}\n");
    std::fs::write(d.join("SUMS"), line.repeat(20_000)).unwrap();
    let (raw, wall) = in_pty(d, 120, "$F --progress -c SUMS > out");
    let out = std::fs::read(d.join("out")).unwrap();
    assert_eq!(out.len(), 20_000 * (name.len() + 5), "{raw:?}");
    // one erase a frame, one at the end; a frame at the start, then a tick
    let erases = raw.matches(ERASE).count() as u128;
    let most = wall.as_millis() / 100 + 2;
    assert!(erases <= most, "{erases} erases in {wall:?}: {raw:?}");
}

/// An error message is never appended to the bar's line: the bar is erased
/// first, the message starts the line, and the bar comes back on the line
/// after it.
#[test]
fn messages_start_on_a_clean_line() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    sparse(t.path(), "s1", 512 * MIB);
    sparse(t.path(), "s2", 512 * MIB);
    let (raw, _) = in_pty(
        t.path(),
        100,
        "$F --progress -a sha256 --untagged s1 nonexist s2",
    );
    let msg = "fastsum: nonexist: No such file or directory";
    let at = raw
        .find(msg)
        .unwrap_or_else(|| panic!("no message: {raw:?}"));
    assert!(
        raw[..at].ends_with(ERASE) || raw[..at].ends_with('\n'),
        "message glued to the line before it: {:?}",
        &raw[at.saturating_sub(200)..at + msg.len()]
    );
    assert!(
        raw[at + msg.len()..].starts_with("\r\n"),
        "{:?}",
        &raw[at..]
    );
    assert!(!frames(&raw).is_empty(), "no frame: {raw:?}");
    let (lines, _) = screen(&raw, 100);
    let lines: Vec<&String> = lines.iter().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(lines[0].ends_with("  s1"), "{lines:#?}");
    assert_eq!(lines[1], msg);
    assert!(lines[2].ends_with("  s2"), "{lines:#?}");
}

/// SIGTERM, SIGHUP and SIGINT erase the line, then fastsum dies of the
/// signal (the shell sees 128 + its number). The input never ends
/// (/dev/zero), so only the signal stops it. `set -m`: a background job
/// keeps SIGINT's default action (without job control it is ignored). The
/// wait is bounded: a fastsum the signal did not stop is killed after 20 s
/// (status 137, a failure, not a hang).
#[test]
fn sigterm_and_sighup_erase_the_line_and_kill() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    for (sig, num) in [("TERM", 15), ("HUP", 1), ("INT", 2)] {
        let cmd = format!(
            "set -m; $F --progress /dev/zero & p=$!; exec 2>/dev/null; \
             sleep 1; kill -{sig} $p; \
             (sleep 20; kill -KILL $p) </dev/null >/dev/null 2>&1 & w=$!; \
             wait $p; echo $? > status; kill $w"
        );
        let (raw, _) = in_pty(t.path(), 100, &cmd);
        let status = std::fs::read_to_string(t.path().join("status")).unwrap();
        assert_eq!(status.trim(), (128 + num).to_string(), "SIG{sig}: {raw:?}");
        assert!(
            frames(&raw).iter().any(|f| f.done > 0.0),
            "SIG{sig}: no line drawn: {raw:?}"
        );
        assert!(
            raw.ends_with(ERASE),
            "SIG{sig}: the last thing written is not the erase: {raw:?}"
        );
        let (lines, _) = screen(&raw, 100);
        assert!(
            lines.iter().all(|l| l.is_empty()),
            "SIG{sig}: left on screen: {lines:?}"
        );
    }
}

/// The test above ends under a parent that ignores SIGHUP and SIGINT (as
/// `nohup cargo test &` does; they stay ignored through exec): the test
/// binary runs it in `sh -c "trap '' HUP INT; exec …"`, bounded. It waited
/// forever there (issue 29).
#[test]
fn the_signal_test_ends_under_a_parent_that_ignores_signals() {
    if !require_tool("script") {
        return;
    }
    let me = std::env::current_exe().unwrap();
    let mut c = Command::new("sh");
    c.args([
        "-c",
        "trap '' HUP INT; exec \"$0\" --exact progress::sigterm_and_sighup_erase_the_line_and_kill",
    ])
    .arg(me);
    let o = crate::util::within(&mut c, Duration::from_secs(90), |c| c.output().unwrap());
    assert!(o.status.success(), "{}", crate::util::shown(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("test result: ok. 1 passed"),
        "{}",
        crate::util::shown(&o)
    );
}

/// A signal the caller ignores stays ignored while the line is shown: under
/// `nohup` (SIGHUP ignored) fastsum runs on to the end and exits 0.
#[test]
fn an_ignored_sighup_is_left_ignored() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    let cmd = "for i in $(seq 15); do head -c 1048576 /dev/zero; sleep 0.1; done \
         | (trap '' HUP; exec $F --progress -) & p=$!; exec 2>/dev/null; \
         sleep 0.7; kill -HUP $p; wait $p; echo $? > status";
    let (raw, _) = in_pty(t.path(), 100, cmd);
    let status = std::fs::read_to_string(t.path().join("status")).unwrap();
    assert_eq!(status.trim(), "0", "{raw:?}");
    // md5 of 15 MiB of zeros
    assert!(
        raw.contains("14b17234e237505421b6492b8d757507  -\r\n"),
        "no checksum line: {raw:?}"
    );
    assert!(!frames(&raw).is_empty(), "no line drawn: {raw:?}");
    assert!(raw.ends_with(ERASE), "{raw:?}");
}

/// On a terminal 30 columns wide every frame fits on one line: fields that
/// do not fit are left out, nothing wraps.
#[test]
fn a_narrow_terminal_gets_one_line() {
    if !require_tool("script") {
        return;
    }
    let t = tempdir();
    sparse(t.path(), "s1", 1 << 30);
    for cols in [30u16, 12] {
        let (raw, _) = in_pty(t.path(), cols, "$F --progress -a sha256 s1 >/dev/null");
        let frames = frames(&raw);
        assert!(frames.len() > 1, "{cols}: {raw:?}");
        for f in &frames {
            assert!(f.text.chars().count() <= cols.into(), "{cols}: {f:?}");
        }
        let (lines, wrapped) = screen(&raw, cols.into());
        assert!(!wrapped, "{cols}: a frame wrapped: {raw:?}");
        assert!(lines.iter().all(|l| l.is_empty()), "{cols}: {lines:?}");
    }
}

#[test]
fn the_screen_emulator_wraps_and_erases() {
    let (lines, wrapped) = screen("abcdef\r\x1b[2Kxy\r\nz", 4);
    assert!(wrapped);
    assert_eq!(lines, ["abcd", "xy", "z"]);
    let (lines, wrapped) = screen("abcd\r\x1b[2K12", 4);
    assert!(!wrapped);
    assert_eq!(lines, ["12"]);
    let f = frames("\r\x1b[2K1/3 files 1.50 MiB/2.00 GiB 3.00 KiB/s ETA 0:01 [>  ]   \r");
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].files, f[0].files_total), (1, Some(3)));
    assert_eq!(f[0].done, 1.5 * MIB as f64);
    assert_eq!(f[0].total, Some(2048.0 * MIB as f64));
    assert_eq!(f[0].rate, Some(3072.0));
    let f = frames("0 files 0 B 0:00\r\x1b[2K1 files 5 B 1.00 KiB/s 0:01");
    assert_eq!(f.len(), 2);
    assert_eq!((f[1].files, f[1].files_total), (1, None));
    assert_eq!(f[1].rate, Some(1024.0));
    let f = frames("2/4 files 5.00 MiB/~10.00 MiB 1.00 KiB/s ETA 0:01");
    assert_eq!(f[0].total, Some(10.0 * MIB as f64));
}
