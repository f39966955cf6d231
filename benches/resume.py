#!/usr/bin/env python3
"""Issue 43's goals for a run that resumes, and for telling rot from an
edit, at full scale (docs/BENCHMARKS.md, "Manifests with metadata").

    benches/resume.py kill [--tree DIR] [--kills 20] [--seed S] [--fastsum BIN]
    benches/resume.py corpus [SEEDS]

kill: a `fastsum -r TREE --update SUMS -a sha256 -m sync` over a big tree
(benches/shards_tree.py: 200,000 files, 2.36 GB; SUMS lists the first
directory, with `#meta` lines) is SIGKILLed at seeded random points (0.2
to 2 s after it starts), again and again, each run going on from the
checkpoint the ones before left. After each kill: SUMS is the old one
byte for byte and `sha256sum -c --strict` verifies it; the checkpoint
lost no record; and the work lost (what the run read of the files, from
/proc/PID/io, less what the checkpoint gained) is within the bound the
checkpoint promises: what it read in its last 1.1 s (it syncs every
second or 256 MiB) plus the files it had open (a row says "over" where
the lines of files hashed behind one still being read waited with it:
the checkpoint takes lines in the run's order). Last, an uninterrupted run
hashes exactly what the checkpoint does not hold (`--stats`), and writes
the SUMS a run never killed writes. (`-m sync`: every byte read is a
read(2), which /proc/PID/io counts; a mapping's bytes it does not.)

corpus: the fault-injected corpora of tests/meta.rs (edits, rot with the
mtime restored, truncations, additions, deletions, renames, a directory
moved, a same-size replacement with its mtime restored: every verdict
right) over SEEDS seeds (default 1,000).
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINT = "SUMS.fastsum-update.checkpoint"


def checkpointed(work):
    """The distinct files the checkpoint's whole records list: their bytes."""
    try:
        text = open(os.path.join(work, CHECKPOINT), "rb").read()
    except FileNotFoundError:
        return 0
    files, size = {}, None
    for line in text.split(b"\n")[1:-1]:
        m = re.match(rb"#meta size=(\d+)", line)
        if m:
            size = int(m.group(1))
        elif size is not None:
            files[line] = size
            size = None
    return sum(files.values())


def rchar(pid):
    try:
        for line in open("/proc/%d/io" % pid):
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except OSError:
        return None


def open_bytes(pid, tree):
    """The sizes of the files under `tree` that `pid` has open."""
    total = 0
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if target.startswith(tree + "/"):
                total += os.path.getsize(target)
    except OSError:
        pass
    return total


def killed_run(fastsum, work, tree, after):
    """One update, SIGKILLed `after` seconds in: (killed, read, bound)."""
    argv = [fastsum, "-r", "tree", "--update", "SUMS", "-a", "sha256", "-m", "sync"]
    p = subprocess.Popen(argv, cwd=work, stderr=subprocess.DEVNULL)
    samples, start = [], time.monotonic()
    while time.monotonic() - start < after and p.poll() is None:
        r = rchar(p.pid)
        if r is not None:
            samples.append((time.monotonic(), r))
        time.sleep(0.02)
    if p.poll() is not None:
        return False, 0, 0
    flight = open_bytes(p.pid, tree)
    last = rchar(p.pid) or samples[-1][1]
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    now = time.monotonic()
    before = [r for t, r in samples if t <= now - 1.1]
    return True, last, last - (before[-1] if before else 0) + flight


def kill(argv):
    tree, kills, seed = "/work/tmp-goals/tree", 20, 43
    fastsum = os.path.join(HERE, "..", "target", "release", "fastsum")
    while argv:
        opt, value, argv = argv[0], argv[1], argv[2:]
        if opt == "--tree":
            tree = value
        elif opt == "--kills":
            kills = int(value)
        elif opt == "--seed":
            seed = int(value)
        elif opt == "--fastsum":
            fastsum = os.path.abspath(value)
        else:
            sys.exit(__doc__)
    tree = os.path.abspath(tree)
    if not os.path.isdir(tree):
        subprocess.run([sys.executable, os.path.join(HERE, "shards_tree.py"), tree], check=True)
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(tree)) as work:
        os.symlink(tree, os.path.join(work, "tree"))
        first = sorted(os.listdir(tree))[0]
        with open(os.path.join(work, "SUMS"), "wb") as out:
            subprocess.run([fastsum, "-r", "--meta", "-a", "sha256", "tree/" + first],
                           cwd=work, stdout=out, check=True)
        shutil.copy(os.path.join(work, "SUMS"), os.path.join(work, "REF"))
        subprocess.run([fastsum, "-r", "tree", "--update", "REF", "-a", "sha256"],
                       cwd=work, check=True, stderr=subprocess.DEVNULL)
        want = open(os.path.join(work, "REF"), "rb").read()
        os.remove(os.path.join(work, "REF"))
        before = open(os.path.join(work, "SUMS"), "rb").read()
        print("| kill | after | read (MB) | checkpointed since (MB) | lost (MB) | bound (MB) |")
        print("|---:|---:|---:|---:|---:|---:|")
        done, worst = 0, 0.0
        while done < kills:
            had = checkpointed(work)
            size = os.path.getsize(os.path.join(work, CHECKPOINT)) \
                if os.path.exists(os.path.join(work, CHECKPOINT)) else 0
            after = rnd.uniform(0.2, 2.0)
            killed, read, bound = killed_run(fastsum, work, tree, after)
            if not killed:
                sys.exit("the run ended before its kill: more kills than the tree takes")
            done += 1
            if open(os.path.join(work, "SUMS"), "rb").read() != before:
                sys.exit("kill %d: SUMS changed" % done)
            subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SUMS"], cwd=work,
                           check=True)
            now = checkpointed(work)
            if now < had:
                sys.exit("kill %d: the checkpoint lost records" % done)
            # (the run read SUMS and the checkpoint first)
            files = read - len(before) - size
            lost = max(0, files - (now - had))
            worst = max(worst, lost / max(bound, 1))
            # (over: lines reach the checkpoint in the run's order, so the
            # files hashed behind one still being read wait with it)
            print("| %d | %.2f s | %.1f | %.1f | %.1f | %.1f%s |" % (
                done, after, files / 1e6, (now - had) / 1e6, lost / 1e6, bound / 1e6,
                " (over)" if lost > bound else ""))
        kept = checkpointed(work)
        o = subprocess.run([fastsum, "-r", "tree", "--update", "SUMS", "-a", "sha256", "--stats"],
                           cwd=work, check=True, stderr=subprocess.PIPE)
        hashed = int(re.search(rb"bytes hashed: (\d+)", o.stderr).group(1))
        total = sum(os.path.getsize(os.path.join(d, f))
                    for d, _, fs in os.walk(tree) for f in fs) \
            - sum(os.path.getsize(os.path.join(tree, first, f))
                  for f in os.listdir(os.path.join(tree, first)))
        print("\nlast run: hashed %d bytes; the tree less SUMS's %d, the checkpoint held %d"
              % (hashed, total, kept))
        if hashed != total - kept:
            sys.exit("the last run hashed what the checkpoint held")
        if open(os.path.join(work, "SUMS"), "rb").read() != want:
            sys.exit("SUMS differs from an uninterrupted run's")
        print("SUMS as an uninterrupted run writes it; worst lost/bound %.2f" % worst)


def corpus(argv):
    seeds = argv[0] if argv else "1000"
    env = dict(os.environ, FASTSUM_TEST_META_SEEDS=seeds)
    test = "meta::audit_tells_rot_from_an_edit_over_seeded_corpora"
    subprocess.run(["cargo", "test", "--test", "tests", test, "--", "--exact"],
                   cwd=os.path.join(HERE, ".."), env=env, check=True)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("kill", "corpus"):
        sys.exit(__doc__)
    (kill if sys.argv[1] == "kill" else corpus)(sys.argv[2:])
