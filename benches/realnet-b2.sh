#!/usr/bin/env bash
# Seed 002's B2 row through a real client (issue 41, item 5): the speed
# factor of read-ahead (`fastsum -m threaded --chunk N`) over reading what
# is consumed (`-m sync --chunk N`) as the chunk N shrinks, MD5, one file
# through sshfs over OpenSSH on 127.0.0.1 behind benches/delayproxy.py at
# MB/S each direction and RTT_MS a round trip (benches/lib.sh's
# realnet_*). sshfs with its defaults: the kernel's page cache and read-
# ahead window, emptied for a file at each open (no kernel_cache), so
# every run reads the file from the server. The commands take turns, one
# hyperfine call a round; prints chunk, sync and threaded means ± σ, and
# their ratio ± its spread.
#
#   sudo benches/realnet-b2.sh [MB/S] [RTT_MS] [SIZE_MIB] [RUNS]   # defaults: 32 1 16 3
#   FASTSUM=PATH runs that binary instead of building one; SSHD_PORT as realnet.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mbs=${1:-32}
rtt=${2:-1}
size=${3:-16}
runs=${4:-3}
chunks="16 64 256 1K 4K 64K"
. benches/lib.sh
need hyperfine flock
build_fastsum
realnet_workdir
head -c $((size << 20)) /dev/urandom > "$work/src/file"
mount_realnet "$rtt" "$mbs"
cmds=()
for chunk in $chunks; do
  cmds+=(-n "sync $chunk" "$fastsum -m sync --chunk $chunk $mnt/file")
  cmds+=(-n "threaded $chunk" "$fastsum -m threaded --chunk $chunk $mnt/file")
done
echo "# sshfs, $rtt ms round trip, $mbs MB/s, $size MiB, $runs rounds, $(date -u +%H:%M) UTC"
side_by_side b2 "$runs" "${cmds[@]}" > "$work/rows"
python3 - "$work/rows" $chunks <<'PY'
import math, sys
rows = {}
for line in open(sys.argv[1]):
    _, cmd, mean, sd = line.rstrip("\n").split("\t")
    rows[cmd] = (float(mean), float(sd))
print("| chunk | sync s | threaded s | speed factor |")
print("|---:|---:|---:|---:|")
for chunk in sys.argv[2:]:
    (s, ds), (t, dt) = rows[f"sync {chunk}"], rows[f"threaded {chunk}"]
    f = s / t
    print(f"| {chunk} | {s:.3f} ± {ds:.3f} | {t:.3f} ± {dt:.3f} | {f:.2f} ± {f * math.hypot(ds / s, dt / t):.2f} |")
PY
unmount_realnet
