#!/usr/bin/env bash
# Walking a big tree (issue 21 §2): `fastsum -r` with its parallel walk
# against the sequential walk (FASTSUM_WALK_THREADS=1) and against
# `find | xargs md5sum`, warm and cold cache, every command side by side;
# then the walk alone (every file excluded: directories read, nothing
# hashed) against `find -type f`, and, with --sweep, the walk alone for
# several thread counts (how the default was chosen). Writes markdown
# tables to stdout (docs/BENCHMARKS.md, "Walking a tree in parallel").
#
#   benches/walk.sh [--runs N] [--sweep] [--tree DIR]
#
# The tree (benches/walk_tree.py: 206,905 files of 0-4 KiB in 6,821
# directories) is made once in DIR (default /tmp/fastsum-walk-tree) and
# kept for later runs. Cold runs drop the page cache before each run
# (echo 3 > /proc/sys/vm/drop_caches: root), else evict the tree with
# vmtouch -e. Needs hyperfine and vmtouch; builds the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
sweep=""
tree=/tmp/fastsum-walk-tree
while (($#)); do
  case "$1" in
    --runs) runs=$2; shift ;;
    --sweep) sweep=1 ;;
    --tree) tree=$2; shift ;;
    *) echo "usage: $0 [--runs N] [--sweep] [--tree DIR]" >&2; exit 2 ;;
  esac
  shift
done
for tool in hyperfine vmtouch; do
  command -v $tool >/dev/null || { echo "$tool is needed (apt-get install $tool)" >&2; exit 1; }
done
cargo build --release --quiet
fastsum=$(realpath target/release/fastsum)
[ -d "$tree" ] || python3 benches/walk_tree.py "$tree"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

warm="find $tree >/dev/null; vmtouch -qt $tree"
if sync && echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then
  cold="sync; echo 3 > /proc/sys/vm/drop_caches"
else
  cold="vmtouch -qe $tree"
fi

# one hyperfine call per round, every command once in each (the load of a
# shared VM drifts within seconds: see benches/many.sh); prints
# "label<TAB>mean<TAB>stddev" rows; arguments: label, command, label, …
bench() {
  local cache=$1 prepare=$2; shift 2
  local round jsons=() names=() cmds=()
  while (($#)); do
    names+=(-n "$1")
    cmds+=("$2")
    shift 2
  done
  for ((round = 0; round < runs; round++)); do
    hyperfine -N --prepare "bash -c '$prepare'" --runs 1 \
      --export-json "$work/$round.json" "${names[@]}" "${cmds[@]}" >/dev/null
    jsons+=("$work/$round.json")
  done
  python3 benches/rounds.py "$cache" "${jsons[@]}" 2>/dev/null
}

sh() { printf 'bash -c %q' "$1"; }
table() { # rows on stdin; the ratio is to the first row of each cache state
  python3 -c '
import sys
rows = [l.rstrip("\n").split("\t") for l in sys.stdin]
print("| cache | command | time (mean ± σ) | ratio |\n|---|---|---:|---:|")
first = {}
for cache, cmd, mean, sd in rows:
    base = first.setdefault(cache, float(mean))
    print(f"| {cache} | {cmd} | {float(mean):.3f} s ± {float(sd):.3f} | {float(mean) / base:.2f} |")
'
}

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1)), load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs each"
echo "tree: $(find "$tree" -type f | wc -l) files in $(find "$tree" -type d | wc -l) directories"
echo
echo "Hashing the tree (MD5, output to /dev/null):"
echo
hash=(
  "fastsum -r" "$(sh "$fastsum -r $tree >/dev/null")"
  "FASTSUM_WALK_THREADS=1 fastsum -r" "$(sh "FASTSUM_WALK_THREADS=1 $fastsum -r $tree >/dev/null")"
  "find -type f -print0 | xargs -0 md5sum" "$(sh "find $tree -type f -print0 | xargs -0 md5sum >/dev/null")"
)
{ bench warm "$warm" "${hash[@]}"; bench cold "$cold" "${hash[@]}"; } | table
echo
echo "The walk alone (--exclude 'f*' leaves out every file: each directory is"
echo "read, nothing is opened or hashed):"
echo
walk=(
  "fastsum -r --exclude 'f*'" "$(sh "$fastsum -r --exclude 'f*' $tree")"
  "FASTSUM_WALK_THREADS=1 fastsum -r --exclude 'f*'" "$(sh "FASTSUM_WALK_THREADS=1 $fastsum -r --exclude 'f*' $tree")"
  "find -type f" "$(sh "find $tree -type f >/dev/null")"
)
{ bench warm "$warm" "${walk[@]}"; bench cold "$cold" "${walk[@]}"; } | table
if [ -n "$sweep" ]; then
  echo
  echo "The walk alone by FASTSUM_WALK_THREADS:"
  echo
  counts=()
  for n in 1 2 4 8 16 32 64; do
    counts+=("FASTSUM_WALK_THREADS=$n" "$(sh "FASTSUM_WALK_THREADS=$n $fastsum -r --exclude 'f*' $tree")")
  done
  { bench warm "$warm" "${counts[@]}"; bench cold "$cold" "${counts[@]}"; } | table
fi
