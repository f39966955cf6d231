#!/usr/bin/env bash
# The algorithms of issue #20 against their reference tools, side by side
# in one hyperfine run, on one warm file (a 1 GiB random file in /dev/shm
# by default): BLAKE3 vs b3sum, BLAKE2b-512 vs b2sum, SM3 vs `cksum -a sm3`, SHA3-256 vs
# `openssl dgst -sha3-256`, XXH3/XXH128/XXH32/XXH64 vs xxhsum, and fastsum
# linked as cksum and sum against GNU's cksum, sum -r and sum -s. Prints a
# markdown table: median wall time, CPU (user + sys), and fastsum's ratio
# of wall and CPU time to the tool's (< 1: fastsum is faster).
#
#   benches/family.sh [MIB, default 1024] [RUNS, default 7]
#
# Needs the release build (cargo build --release), hyperfine, b3sum, b2sum and
# cksum (GNU coreutils 9.1+), openssl, xxhsum, python3.

set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-1024}
runs=${2:-7}
fastsum=$PWD/target/release/fastsum
[ -x "$fastsum" ] || { echo "no $fastsum (cargo build --release)" >&2; exit 2; }
# FAMILY_DIR: where the file lives (default /dev/shm, tmpfs; a directory on
# a disk's file system measures files in its page cache, loaded again with
# vmtouch before every run, as the VM drops idle pages)
base=${FAMILY_DIR:-/dev/shm}
dir=$(mktemp -d "$base/fastsum-family.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# cksum and sum are fastsum under those names
bin=$dir/bin
mkdir "$bin"
ln -s "$fastsum" "$bin/cksum"
ln -s "$fastsum" "$bin/sum"
f=$dir/data
head -c "$((mib * 1024 * 1024))" /dev/urandom > "$f"

# b3sum: 1.8.7 as CI installs it when there, else the one on PATH
b3sum=$HOME/.cache/fastsum-ci/b3sum-1.8.7/bin/b3sum
[ -x "$b3sum" ] || b3sum=$(command -v b3sum)
pairs=(
  "BLAKE3|$fastsum -a blake3 $f|$b3sum $f"
  "BLAKE2b-512|$fastsum -a blake2b $f|b2sum $f"
  "SM3|$fastsum -a sm3 $f|cksum -a sm3 $f"
  "SHA3-256|$fastsum -a sha3 -l 256 $f|openssl dgst -sha3-256 $f"
  "XXH3|$fastsum -a xxh3 $f|xxhsum -H3 $f"
  "XXH128|$fastsum -a xxh128 $f|xxhsum -H2 $f"
  "XXH64|$fastsum -a xxh64 $f|xxhsum -H1 $f"
  "XXH32|$fastsum -a xxh32 $f|xxhsum -H0 $f"
  "POSIX CRC|$bin/cksum $f|cksum $f"
  "BSD sum|$bin/sum $f|sum $f"
  "System V sum|$bin/sum -s $f|sum -s $f"
)
cmds=()
for p in "${pairs[@]}"; do
  IFS='|' read -r _ ours theirs <<< "$p"
  cmds+=("$ours" "$theirs")
done
prepare=true
command -v vmtouch > /dev/null && prepare="vmtouch -qt $f"
hyperfine -N -w 1 -r "$runs" --prepare "$prepare" --export-json "$dir/h.json" "${cmds[@]}" > /dev/null

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $mib MiB random file in $base ($(stat -f -c %T "$base")); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
python3 - "$dir/h.json" "${pairs[@]}" <<'EOF'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print("| algorithm | fastsum (s) | CPU (s) | tool | tool (s) | CPU (s) | × wall | × CPU |")
print("|---|---:|---:|---|---:|---:|---:|---:|")
for pair in sys.argv[2:]:
    name, ours, theirs = pair.split("|")
    a, b = res[ours], res[theirs]
    ca, cb = a["user"] + a["system"], b["user"] + b["system"]
    tool = theirs.rsplit(" ", 1)[0]
    print(f"| {name} | {a['median']:.3f} | {ca:.3f} | `{tool}` | {b['median']:.3f} | {cb:.3f} "
          f"| {a['median'] / b['median']:.2f} | {ca / cb:.2f} |")
EOF
python3 -c "
import time, zlib
d = open('$f', 'rb').read()
t = min((lambda s: (zlib.crc32(d), time.perf_counter() - s)[1])(time.perf_counter()) for _ in range(3))
print(f'\npython3 zlib.crc32 in memory: {len(d) / t / 1e9:.1f} GB/s')"
