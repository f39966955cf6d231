#!/usr/bin/env bash
# Issue 45, item 2: one big cached file against its own tool. XXH3 (and
# XXH128, XXH64, XXH32) against xxhsum -H3 (-H2, -H1, -H0), goal ≤ 0.9×;
# BLAKE3 against b3sum ($B3SUM, default b3sum), goal ≤ 0.9×; with
# BASELINE=path/to/an/older/fastsum, its XXH3, CRC-32C, BLAKE3 and MD5
# beside this build's (MD5 not slower). The copy of a big cached file is
# shared by several readers when the hash outruns one core's copy
# (`Reads::Copiers`): `--stats` of one run is shown first. hyperfine in
# ROUNDS rounds of RUNS runs of every command, the commands alternating
# from round to round, under the bench lock; prints each command's median
# of every run, its spread (min–max), its CPU (user + system, median of
# the rounds' means), and each ratio: the median of the rounds' ratios,
# and their range. RT=1 runs hyperfine (and so every command) under
# `chrt -f 10`: other sessions' builds then wait, which stands in for a
# quiet machine on a shared one (say so when quoting it).
#
#   [BASELINE=…/fastsum] [B3SUM=…/b3sum] [RT=1] benches/copiers.sh [MIB, default 1024] [ROUNDS, default 5] [RUNS, default 5]
#
# The file: $COPIERS_DIR (default /dev/shm). Needs the release build
# (cargo build --release), hyperfine, python3, xxhsum, b3sum.

set -euo pipefail
cd "$(dirname "$0")/.."
. benches/lib.sh
fastsum=$PWD/target/release/fastsum
[ -x "$fastsum" ] || { echo "no $fastsum (cargo build --release)" >&2; exit 2; }
b3sum=${B3SUM:-b3sum}
need hyperfine python3 xxhsum "$b3sum"
base=${COPIERS_DIR:-/dev/shm}
mib=${1:-1024} rounds=${2:-5} runs=${3:-5}
random_data "$base" fastsum-copiers "$mib"
cat "$f" > /dev/null
"$fastsum" --stats -a xxh3 "$f" 2>&1 | sed 's/^/  /'

names=(xxh3 xxhsum-H3 xxh128 xxhsum-H2 xxh64 xxhsum-H1 xxh32 xxhsum-H0 crc32c blake3 b3sum md5)
cmds=(
  "$fastsum -a xxh3 $f" "xxhsum -H3 $f"
  "$fastsum -a xxh128 $f" "xxhsum -H2 $f"
  "$fastsum -a xxh64 $f" "xxhsum -H1 $f"
  "$fastsum -a xxh32 $f" "xxhsum -H0 $f"
  "$fastsum -a crc32c $f"
  "$fastsum -a blake3 $f" "$b3sum $f"
  "$fastsum -a md5 $f"
)
if [ -n "${BASELINE:-}" ]; then
  names+=(base-xxh3 base-crc32c base-blake3 base-md5)
  cmds+=("$BASELINE -a xxh3 $f" "$BASELINE -a crc32c $f" "$BASELINE -a blake3 $f" "$BASELINE -a md5 $f")
fi
prepare=true
command -v vmtouch > /dev/null && prepare="vmtouch -qt $f"
alternate "$dir" "$rounds" "$runs" "$prepare" "${cmds[@]}"

echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $mib MiB random file in $base; $rounds rounds of $runs runs$([ "${RT:-0}" = 1 ] && echo ', under chrt -f 10'); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
ratios=(
  "xxh3/xxhsum-H3<=0.9=XXH3 ÷ xxhsum -H3"
  "xxh128/xxhsum-H2<=0.9=XXH128 ÷ xxhsum -H2"
  "xxh64/xxhsum-H1<=0.9=XXH64 ÷ xxhsum -H1"
  "xxh32/xxhsum-H0<=0.9=XXH32 ÷ xxhsum -H0"
  "blake3/b3sum<=0.9=BLAKE3 ÷ b3sum"
)
if [ -n "${BASELINE:-}" ]; then
  ratios+=(
    "xxh3/base-xxh3<=1.0=XXH3 ÷ baseline's"
    "crc32c/base-crc32c<=1.0=CRC-32C ÷ baseline's"
    "blake3/base-blake3<=1.0=BLAKE3 ÷ baseline's"
    "md5/base-md5<=1.0=MD5 ÷ baseline's"
  )
fi
python3 benches/sides.py ms "$dir" "$rounds" "${names[@]}" -- "${cmds[@]}" -- "${ratios[@]}"
