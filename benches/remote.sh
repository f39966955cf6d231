#!/usr/bin/env bash
# Seed 002's B2 column (issue 30): the speed factor of read-ahead (the
# threaded mode) over reading what is consumed (sync) as the chunk
# shrinks, MD5, on a remote file system: benches/slowfs with the kernel's
# page cache and read-ahead (`--cache`, as an NFS client), every request
# answered after LATENCY ms, all sharing MB/S. Cold for every run (the
# caches dropped). Prints one line per chunk size: sync and threaded means
# and their ratio.
#
#   sudo benches/remote.sh [MB/S] [LATENCY_MS] [SIZE_MIB] [RUNS]
#                                         # defaults: 32 1 64 3
set -euo pipefail
cd "$(dirname "$0")/.."
mbs=${1:-32}
latency=${2:-1}
size=${3:-64}
runs=${4:-3}
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 1; }
cargo build --release --quiet
(cd benches/slowfs && cargo build --release --quiet)
fastsum=$(realpath target/release/fastsum)
slowfs=$(realpath benches/slowfs/target/release/slowfs)
work=$(mktemp -d)
mnt="$work/mnt"
mkdir -p "$work/src" "$mnt"
cleanup() { cd /; fusermount3 -u "$mnt" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
head -c $((size << 20)) /dev/urandom > "$work/src/file"
"$slowfs" "$work/src" "$mnt" --cache --latency "$latency" --bandwidth "$mbs" &
for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.05; done
mountpoint -q "$mnt" || { echo "slowfs did not mount" >&2; exit 1; }
echo "# slowfs --cache: $mbs MB/s, $latency ms a request; $size MiB cold; MD5"
printf 'chunk\tsync s\tthreaded s\tspeed factor\n'
for chunk in 16 64 256 1K 4K 64K; do
  json="$work/$chunk.json"
  hyperfine -N -r "$runs" --export-json "$json" \
    --prepare "sh -c 'echo 3 > /proc/sys/vm/drop_caches'" \
    -n sync "$fastsum -m sync --chunk $chunk $mnt/file" \
    -n threaded "$fastsum -m threaded --chunk $chunk $mnt/file" >/dev/null
  python3 - "$json" "$chunk" <<'EOF'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"{sys.argv[2]}\t{r['sync']:.3f}\t{r['threaded']:.3f}\t{r['sync'] / r['threaded']:.1f}")
EOF
done
