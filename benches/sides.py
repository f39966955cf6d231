#!/usr/bin/env python3
"""The rounds of a side-by-side benchmark (`alternate` in lib.sh: DIR/rN.json,
every command once a round) summed up: a table of every command (the median
of all its runs, their spread, its CPU: user + system, the median of the
rounds' means), then each ratio asked for, the median of the rounds'
ratios and their range, against its goal. A ratio is
`NAME/OTHER[+OTHER…]<=GOAL=WORDS`: NAME's round median over OTHER's (over
the slowest of several OTHERs); `ms` first shows milliseconds, not seconds.

    benches/sides.py [ms] DIR ROUNDS NAME... -- COMMAND... -- RATIO...
"""
import json
import statistics
import sys

args = sys.argv[1:]
ms = args[0] == "ms"
if ms:
    args = args[1:]
d, rounds = args[0], int(args[1])
first = args.index("--")
second = args.index("--", first + 1)
names, cmds, ratios = args[2:first], args[first + 1:second], args[second + 1:]
per = {n: [] for n in names}      # every run's time
med = {n: [] for n in names}      # each round's median
cpu = {n: [] for n in names}      # each round's mean user + system
for r in range(1, rounds + 1):
    res = {x["command"]: x for x in json.load(open(f"{d}/r{r}.json"))["results"]}
    for n, c in zip(names, cmds):
        per[n] += res[c]["times"]
        med[n].append(res[c]["median"])
        cpu[n].append(res[c]["user"] + res[c]["system"])
scale, unit, digits = (1e3, "ms", 1) if ms else (1, "s", 3)
print(f"| command | median ({unit}) | min–max ({unit}) | CPU ({unit}) |")
print("|---|---:|---:|---:|")
for n, c in zip(names, cmds):
    t = [scale * x for x in per[n]]
    words = [w.rsplit("/", 1)[-1] if "/" in w else w for w in c.split(" ")]
    shown = "baseline " + " ".join(words[1:]) if n.startswith("base-") else " ".join(words)
    c_ = scale * statistics.median(cpu[n])
    print(f"| `{shown}` | {statistics.median(t):.{digits}f} | {min(t):.{digits}f}–{max(t):.{digits}f} | {c_:.{digits}f} |")
print()
print("| goal | × (median of rounds) | range | goal | |")
print("|---|---:|---:|---:|---|")
for spec in ratios:
    pair, rest = spec.split("<=", 1)
    goal, what = rest.split("=", 1)
    a, bs = pair.split("/", 1)
    below = [max(x) for x in zip(*(med[b] for b in bs.split("+")))]
    rs = [x / y for x, y in zip(med[a], below)]
    m = statistics.median(rs)
    print(f"| {what} | {m:.3f} | {min(rs):.3f}–{max(rs):.3f} | ≤ {goal} | {'met' if m <= float(goal) else 'not met'} |")
