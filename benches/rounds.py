#!/usr/bin/env python3
"""The rounds of a side-by-side benchmark (one hyperfine JSON per round,
every command once in each) merged: one "NAME<TAB>command<TAB>mean
seconds<TAB>stddev" row per command on stdout, a summary on stderr.
Hyperfine's --command-name, if given, is the command's label.

    benches/rounds.py NAME ROUND.json...
"""
import json
import statistics
import sys

name, paths = sys.argv[1], sys.argv[2:]
times = {}
for p in paths:
    for r in json.load(open(p))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
for cmd, t in times.items():
    sd = statistics.stdev(t) if len(t) > 1 else 0
    print(f"{name}\t{cmd}\t{statistics.mean(t):.4f}\t{sd:.4f}")
    print(f"{name}: {cmd}: mean {statistics.mean(t):.3f} s, median {statistics.median(t):.3f} s, {len(t)} runs", file=sys.stderr)
