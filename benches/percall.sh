#!/usr/bin/env bash
# One call per file, the way scripts, Makefiles and `find -exec md5sum {} \;`
# use a checksum tool: fastsum against md5sum (and b3sum, rhash when
# installed), every command side by side in one run.
#
#   benches/percall.sh [--baseline PATH] [--static]
#
# 1. one small file, one call: `perf stat -r 500` (task-clock and page
#    faults) and `hyperfine -N -r 500` (elapsed: mean and median);
# 2. a shell loop calling the tool once for each of 300 small files:
#    hyperfine, idle machine, then again with both cores kept busy.
# --baseline PATH adds an older fastsum; --static adds a statically linked
# build (see README, "Install"). Needs hyperfine and perf (linux-perf).
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=""
static=""
while (($#)); do
  case "$1" in
    --baseline) baseline=$(realpath "$2"); shift ;;
    --static) static=1 ;;
    *) echo "usage: $0 [--baseline PATH] [--static]" >&2; exit 2 ;;
  esac
  shift
done
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --quiet
fastsum=$(realpath target/release/fastsum)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
if [ -n "$static" ]; then
  triple=$(rustc -vV | sed -n 's/^host: //p')
  RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --quiet \
    --target "$triple" --target-dir "$work/static-target"
  static=$work/static-target/$triple/release/fastsum
fi

head -c 5000 /dev/urandom > "$work/one"
mkdir "$work/files"
for i in $(seq 300); do head -c $((RANDOM % 20000)) /dev/urandom > "$work/files/f$i"; done

# the tools: label and command
tools=("md5sum" "fastsum:$fastsum")
command -v b3sum >/dev/null && tools+=("b3sum")
command -v rhash >/dev/null && tools+=("rhash --md5")
[ -n "$baseline" ] && tools+=("fastsum-baseline:$baseline")
[ -n "$static" ] && tools+=("fastsum-static:$static")
cmd() { case "$1" in *:*) echo "${1#*:}" ;; *) echo "$1" ;; esac; }
label() { case "$1" in *:*) echo "${1%%:*}" ;; *) echo "$1" ;; esac; }

echo "## One call per file ($(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo
echo "| tool | one small file: CPU ms | page faults | elapsed ms: mean | median |"
echo "|---|---:|---:|---:|---:|"
for t in "${tools[@]}"; do
  # shellcheck disable=SC2046
  perf stat -r 500 -x, -e task-clock,page-faults -o "$work/stat" $(cmd "$t") "$work/one" >/dev/null
  cpu=$(awk -F, '/task-clock/ {printf "%.3f", $1}' "$work/stat")
  faults=$(awk -F, '/page-faults/ {printf "%.0f", $1}' "$work/stat")
  # elapsed: perf -x prints no wall time, so time the same runs with hyperfine
  wall=$(hyperfine -N -w 20 -r 500 --export-json "$work/h.json" "$(cmd "$t") $work/one" >/dev/null 2>&1 &&
    python3 -c "import json;r=json.load(open('$work/h.json'))['results'][0];print('%.3f | %.3f'%(r['mean']*1000,r['median']*1000))")
  echo "| $(label "$t") | $cpu | $faults | $wall |"
done

loop() { printf 'for f in %q/files/*; do %s "$f"; done >/dev/null' "$work" "$(cmd "$1")"; }
args=()
for t in "${tools[@]}"; do args+=(-n "$(label "$t")" "$(loop "$t")"); done
echo
echo "300 calls in a shell loop, idle machine:"
echo
hyperfine -w 2 -r 10 --export-markdown "$work/idle.md" "${args[@]}" >/dev/null
cat "$work/idle.md"
# a loaded machine: one busy loop per core
for _ in $(seq "$(nproc)"); do (while :; do :; done) & done
echo
echo "The same with every core kept busy by a spinning shell:"
echo
hyperfine -w 1 -r 6 --export-markdown "$work/loaded.md" "${args[@]}" >/dev/null
cat "$work/loaded.md"
