#!/usr/bin/env bash
# Seed 002's B2 column (issue 30): the speed factor of read-ahead (the
# threaded mode) over reading what is consumed (sync) as the chunk
# shrinks, MD5, on a remote file system: benches/slowfs, every request
# answered after LATENCY ms, all sharing MB/S, swept over the kernel's
# read-ahead window for the mount (WINDOWS, comma-separated):
#
#   direct    no page cache (slowfs without --cache: direct_io, every read
#             call one request, none read ahead)
#   N         --cache with a window of N KiB (slowfs --readahead N, or the
#             bdi's read_ahead_kb when N is above what the kernel offers);
#             0: none, each page missed is one request waited for
#   default   --cache with the kernel's own window (128 KiB on Linux 6.x)
#
# Cold for every run (the caches dropped). `fastsum -m sync --chunk N`
# against `fastsum -m threaded --chunk N`, N = 16 B ... 64 KiB. The file
# is SIZE_MIB (the largest), made smaller for a window and chunk where a
# sync run is estimated to take more than MAX_S seconds (rounded down to a
# power of two, at least 64 KiB). The estimate: each request waits the
# latency plus 0.1 ms (FUSE's round trip here), a sync read call of N bytes
# is one request (direct) or waits for one window (N, a page, at least),
# the bytes go at MB/S, and a read call costs 1 us. Prints one line per
# window and chunk: the file size, sync and threaded means ± σ, their
# ratio ± its spread. Each hyperfine run holds /tmp/fastsum-bench.lock.
#
#   sudo benches/remote.sh [MB/S] [LATENCY_MS] [SIZE_MIB] [RUNS] [WINDOWS] [MAX_S]
#       # defaults: 32 1 64 3 direct,0,4,16,default 30
#   sudo benches/remote.sh 32 1 64 3 default   # the first sweep: --cache, the kernel's window
set -euo pipefail
cd "$(dirname "$0")/.."
mbs=${1:-32}
latency=${2:-1}
size=${3:-64}
runs=${4:-3}
windows=${5:-direct,0,4,16,default}
max_s=${6:-30}
chunks="16 64 256 1K 4K 64K"
. benches/lib.sh
need hyperfine fusermount3 flock python3
build_slowfs
slowfs_workdir
head -c $((size << 20)) /dev/urandom > "$work/src/full"

# the file size (KiB) for a window of $1 KiB ("direct": no cache) and
# chunk $2: SIZE_MIB, or less where a sync run would take more than MAX_S
size_kib() {
  python3 - "$1" "$2" "$mbs" "$latency" "$size" "$max_s" <<'EOF'
import sys
window, chunk, mbs, ms, size, max_s = sys.argv[1:]
c = int(chunk[:-1]) * 1024 if chunk.endswith("K") else int(chunk)
bw, lat = float(mbs) * 1e6, float(ms) / 1000 + 1e-4
if window == "direct":    # every read call a request
    wait = c
elif window == "0":       # every page a request, whatever the call asks
    wait = 4096
else:                     # at worst a round trip per window or read call
    wait = max(int(window) * 1024, c, 4096)
per_kib = 1024 / wait * lat + 1024 / bw + 1024 / c * 1e-6
fit = min(int(size) * 1024, float(max_s) / per_kib)
p = 64
while p * 2 <= fit:
    p *= 2
print(p)
EOF
}

echo "# slowfs: $mbs MB/s, $latency ms a request; MD5, cold; file $size MiB or less,"
echo "# so that a sync run is estimated at most ${max_s} s; $runs runs each"
printf 'window\tchunk\tsize\tsync s\tthreaded s\tspeed factor\n'
for window in ${windows//,/ }; do
  case "$window" in
    direct) mount_slowfs --latency "$latency" --bandwidth "$mbs" ;;
    default) mount_slowfs --cache --latency "$latency" --bandwidth "$mbs" ;;
    *) mount_slowfs --cache --latency "$latency" --bandwidth "$mbs" --readahead "$window"
       bdi=/sys/class/bdi/$(mountpoint -d "$mnt")/read_ahead_kb
       # above the kernel's offer: set on the mount's bdi
       [ "$(cat "$bdi")" = "$window" ] || echo "$window" > "$bdi" ;;
  esac
  window_kib=direct shown=direct
  if [ "$window" != direct ]; then
    window_kib=$(cat "/sys/class/bdi/$(mountpoint -d "$mnt")/read_ahead_kb")
    shown="$window_kib KiB"
  fi
  for chunk in $chunks; do
    file_kib=$(size_kib "$window_kib" "$chunk")
    # a new name each time: the kernel keeps a name's attributes (its size)
    file="f-$window-$chunk"
    head -c $((file_kib << 10)) "$work/src/full" > "$work/src/$file"
    json="$work/$chunk.json"
    locked hyperfine -N -r "$runs" --export-json "$json" \
      --prepare "sh -c 'echo 3 > /proc/sys/vm/drop_caches'" \
      -n sync "$fastsum -m sync --chunk $chunk $mnt/$file" \
      -n threaded "$fastsum -m threaded --chunk $chunk $mnt/$file" >/dev/null
    python3 - "$json" "$shown" "$chunk" "$file_kib" <<'EOF'
import json, math, sys
r = {x["command"]: (x["mean"], x["stddev"] or 0) for x in json.load(open(sys.argv[1]))["results"]}
(s, ds), (t, dt) = r["sync"], r["threaded"]
f = s / t
df = f * math.hypot(ds / s, dt / t)
kib = int(sys.argv[4])
size = f"{kib >> 10} MiB" if kib >= 1024 else f"{kib} KiB"
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{size}\t{s:.3f} ± {ds:.3f}\t{t:.3f} ± {dt:.3f}\t{f:.2f} ± {df:.2f}")
EOF
    rm "$work/src/$file"
  done
  unmount_slowfs
done
