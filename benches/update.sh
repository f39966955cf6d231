#!/usr/bin/env bash
# `--update` of a manifest with `#meta` lines against
# `find DIR -type f -printf '%s %T@ %p\n'` (issue 43's goals), every
# command alternated with find in one run: nothing changed (warm), 1 % of
# the files with a new mtime (warm), nothing changed cold (the page cache
# dropped before each run: root), and `-c` of the manifest with and without
# its `#meta` lines. Prints each command's median wall and CPU (user +
# system) time, their range, and the ratio to find's medians.
#
#   benches/update.sh [--runs N] [--cold N] [--tree DIR] BIN [BIN...]
#
# The tree: 200,000 files of 100-1,000 random bytes in 400 directories,
# their mtimes in 2023 (made once in DIR, default /tmp/fastsum-update-tree,
# with python3). Each BIN is a fastsum binary (e.g. a frozen "before" and
# target/release/fastsum).
set -euo pipefail
runs=5 cold=3 tree=/tmp/fastsum-update-tree
while [[ $# -gt 0 && $1 == --* ]]; do
  case "$1" in
    --runs) runs=$2 ;; --cold) cold=$2 ;; --tree) tree=$2 ;;
    *) echo "usage: $0 [--runs N] [--cold N] [--tree DIR] BIN..." >&2; exit 2 ;;
  esac
  shift 2
done
(($#)) || { echo "usage: $0 [--runs N] [--cold N] [--tree DIR] BIN..." >&2; exit 2; }
bins=(); for b in "$@"; do bins+=("$(realpath "$b")"); done
if [ ! -d "$tree/t" ]; then
  mkdir -p "$tree"
  python3 - "$tree/t" <<'PY'
import os, random, sys
random.seed(43)
for d in range(400):
    p = os.path.join(sys.argv[1], "d%03d" % d); os.makedirs(p)
    for i in range(500):
        f = os.path.join(p, "f%05d" % i)
        with open(f, "wb") as fh: fh.write(random.randbytes(random.randint(100, 1000)))
        os.utime(f, (1700000000, 1700000000 + i))
PY
fi
cd "$tree"
log=$(mktemp); trap 'rm -f "$log"' EXIT
"${bins[0]}" -r --meta t > SUMS.meta
grep -v '^#meta ' SUMS.meta > SUMS.plain
timed() { # LABEL CMD...: one run, appended to the log
  local label=$1; shift
  /usr/bin/time -a -o "$log" -f "$label %e %U %S" "$@" > /dev/null 2>&1
}
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
for i in $(seq "$runs"); do
  timed find find t -type f -printf '%s %T@ %p\n'
  for b in "${bins[@]}"; do
    cp SUMS.meta S; timed "unchanged:$b" "$b" -r t --update S
  done
done
# 1 %: 2,000 files given a new mtime (their lines are hashed again)
(find t -type f -name 'f*[05]0' || true) | head -2000 | xargs touch -d @1750000000
for i in $(seq "$runs"); do
  timed find-1 find t -type f -printf '%s %T@ %p\n'
  for b in "${bins[@]}"; do
    cp SUMS.meta S; timed "edited:$b" "$b" -r t --update S
  done
done
"${bins[0]}" -r --meta t > SUMS.meta
grep -v '^#meta ' SUMS.meta > SUMS.plain
for i in $(seq "$cold"); do
  drop; timed find-cold find t -type f -printf '%s %T@ %p\n'
  for b in "${bins[@]}"; do
    cp SUMS.meta S; drop; timed "cold:$b" "$b" -r t --update S
  done
done
for i in $(seq "$runs"); do
  for b in "${bins[@]}"; do
    timed "check-plain:$b" "$b" -c --quiet SUMS.plain
    timed "check-meta:$b" "$b" -c --quiet SUMS.meta
  done
done
python3 - "$log" <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, e, u, s = line.rsplit(None, 3)
    d[label].append((float(e), float(u) + float(s)))
med = lambda v, i: st.median(x[i] for x in v)
base = {"unchanged": "find", "edited": "find-1", "cold": "find-cold"}
for label, v in d.items():
    kind = label.split(":")[0]
    ref = d.get(base.get(kind, ""), None)
    if kind == "check-meta":
        ref = d[label.replace("check-meta", "check-plain")]
    ratio = f"{med(v,0)/med(ref,0):.2f}x wall, {med(v,1)/med(ref,1):.2f}x CPU" if ref else ""
    print(f"{label}: wall {med(v,0):.3f} s ({min(x[0] for x in v):.2f}-{max(x[0] for x in v):.2f}), "
          f"CPU {med(v,1):.3f} s ({min(x[1] for x in v):.2f}-{max(x[1] for x in v):.2f}) {ratio}")
PY
uptime
