#!/usr/bin/env python3
"""Issue 44's goals for shards, measured (docs/BENCHMARKS.md, "Shards").

    benches/shards.py cost [--runs R] [--tree DIR] [--n 8,64] [--fastsum BIN]
    benches/shards.py identity [SEEDS]

cost: the CPU (user + system, of the children, from getrusage) of one run
`fastsum -r -a md5,sha256 --tag TREE` against N shards of it run one after
another, each walking the tree (`-r --shard K/N`), and against one
`find TREE -type f -printf '%s %p\\0'` plus N shards of that list
(`--files0-from LIST --list-sizes --shard K/N`); then the wall time of
`--merge` of each set of parts, the merged bytes compared with one run's
(the walk's, the list's). The rounds alternate the commands; medians and
ranges are printed as markdown. The tree (benches/shards_tree.py, 200,000
files, 2.36 GB) is made in DIR once (default /work/tmp-goals/tree).

identity: the merged-is-one-run test over SEEDS seeded trees (default
100), N = 1, 2, 3, 8, 64, each of `-a md5,sha256 --tag`, `-z`, `--json`
(tests/shards.rs, merged_shards_are_one_runs_output_byte_for_byte).
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OPTS = ["-a", "md5,sha256", "--tag"]


def cpu(argv, stdout=subprocess.DEVNULL):
    """Run argv; its CPU seconds (user + system) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=stdout, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return used, wall


def shards(fastsum, n, work, args):
    """N shards one after another, each to work/part.K: CPU, wall."""
    used = wall = 0.0
    for k in range(n):
        out = os.path.join(work, "part.%d" % k)
        c, w = cpu([fastsum, *OPTS, *args, "--shard=%d/%d" % (k, n), "--output", out])
        used, wall = used + c, wall + w
    return used, wall


def merge(fastsum, n, work, want):
    """--merge of work/part.*: its wall time; the bytes must be want's."""
    parts = [os.path.join(work, "part.%d" % k) for k in range(n)]
    merged = os.path.join(work, "merged")
    with open(merged, "wb") as out:
        _, wall = cpu([fastsum, "--merge", *parts], stdout=out)
    if open(merged, "rb").read() != open(want, "rb").read():
        sys.exit("merged parts differ from one run (%s)" % want)
    return wall


def cost(argv):
    runs, tree, ns = 3, "/work/tmp-goals/tree", [8, 64]
    fastsum = os.path.join(HERE, "..", "target", "release", "fastsum")
    while argv:
        opt, value = argv[0], argv[1]
        argv = argv[2:]
        if opt == "--runs":
            runs = int(value)
        elif opt == "--tree":
            tree = value
        elif opt == "--n":
            ns = [int(n) for n in value.split(",")]
        elif opt == "--fastsum":
            fastsum = value
        else:
            sys.exit(__doc__)
    if not os.path.isdir(tree):
        subprocess.run([sys.executable, os.path.join(HERE, "shards_tree.py"), tree], check=True)
    rows = {}

    def add(name, value):
        rows.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as work:
        one, listed = os.path.join(work, "one"), os.path.join(work, "listed")
        lst = os.path.join(work, "LIST")
        for _ in range(runs):
            with open(one, "wb") as out:
                add("one run: `-r` (CPU s)", cpu([fastsum, "-r", *OPTS, tree], out)[0])
            with open(lst, "wb") as out:
                add("`find -printf '%s %p\\0'` (CPU s)",
                    cpu(["find", tree, "-type", "f", "-printf", "%s %p\\0"], out)[0])
            with open(listed, "wb") as out:
                cpu([fastsum, *OPTS, "--files0-from", lst, "--list-sizes"], out)
            for n in ns:
                add("N=%d, each walks (CPU s)" % n, shards(fastsum, n, work, ["-r", tree])[0])
                add("N=%d merge of the walked parts (wall s)" % n, merge(fastsum, n, work, one))
                add("N=%d of the list (CPU s)" % n,
                    shards(fastsum, n, work, ["--files0-from", lst, "--list-sizes"])[0])
                add("N=%d merge of the list's parts (wall s)" % n, merge(fastsum, n, work, listed))
    base = statistics.median(rows["one run: `-r` (CPU s)"])
    find = statistics.median(rows["`find -printf '%s %p\\0'` (CPU s)"])
    print("| what | median | range | × one run |")
    print("|---|---:|---:|---:|")
    for name, values in rows.items():
        med = statistics.median(values)
        ratio = ""
        if "CPU" in name and "find" not in name:
            ratio = "%.2f×" % ((med + (find if "list" in name else 0)) / base)
        print("| %s | %.3f | %.3f–%.3f | %s |" % (name, med, min(values), max(values), ratio))
    print("\n(× one run: the list's rows count the find too)")


def identity(argv):
    seeds = argv[0] if argv else "100"
    env = dict(os.environ, FASTSUM_SHARD_SEEDS=seeds)
    test = "shards::merged_shards_are_one_runs_output_byte_for_byte"
    subprocess.run(["cargo", "test", "--test", "tests", test, "--", "--exact"],
                   cwd=os.path.join(HERE, ".."), env=env, check=True)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("cost", "identity"):
        sys.exit(__doc__)
    (cost if sys.argv[1] == "cost" else identity)(sys.argv[2:])
