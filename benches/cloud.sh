#!/usr/bin/env bash
# The goals of issues 32 and 45 (the digests object stores report, and
# their parts hashed side by side), on one warm 1 GiB random file (in
# /dev/shm by default). Issue 32: CRC-64/NVME and CRC-32C against XXH3
# (goal: ≤ 1.1×), the ETag, CRC-64/NVME and composite SHA-256 in one read
# against the slowest of them alone (≤ 1.1×). Issue 45: the S3 ETag over
# 8 MiB parts (`-a md5@8M`) against md5sum (≤ 0.25×; on one core,
# `taskset -c 0` both, ≤ 0.5×), the composite SHA-256 against fastsum's
# plain SHA-256 (≤ 0.6×), a bare `HEX-N` ETag check line against md5sum
# (≤ 0.5×); with BASELINE=path/to/an/older/fastsum, its MD5, CRC-64/NVME
# and composite CRC-32C against this build's (1 GiB MD5 not slower,
# composite CRCs unchanged: ≤ 1.05×). hyperfine in ROUNDS rounds of RUNS
# runs of every command, the commands alternating from round to round,
# under the bench lock; prints the median of every run of each command,
# its spread (min–max), its CPU time (user + system, median of the rounds'
# means), and each goal's ratio: the median of the rounds' ratios, and
# their range.
#
#   [BASELINE=…/fastsum] benches/cloud.sh [MIB, default 1024] [ROUNDS, default 5] [RUNS, default 3]
#
# Needs the release build (cargo build --release), hyperfine, python3,
# md5sum, taskset.

set -euo pipefail
cd "$(dirname "$0")/.."
. benches/lib.sh
mib=${1:-1024}
rounds=${2:-5}
runs=${3:-3}
fastsum=$PWD/target/release/fastsum
[ -x "$fastsum" ] || { echo "no $fastsum (cargo build --release)" >&2; exit 2; }
base=${CLOUD_DIR:-/dev/shm}
random_data "$base" fastsum-cloud "$mib"

# a bare ETag check line, by S3's definition (hashlib)
python3 - "$f" > "$dir/etag" <<'EOF'
import hashlib, sys
d, part = open(sys.argv[1], 'rb').read(), 8 << 20
ps = [d[i:i + part] for i in range(0, len(d), part)]
h = hashlib.md5(b''.join(hashlib.md5(p).digest() for p in ps)).hexdigest()
print('%s-%d  %s' % (h, len(ps), sys.argv[1]))
EOF

names=(xxh3 crc64nvme crc32c md5 etag sha256@8M all3 md5sum etag-1core md5sum-1core sha256 etag-check crc32c@8M)
cmds=(
  "$fastsum -a xxh3 $f"
  "$fastsum -a crc64nvme $f"
  "$fastsum -a crc32c $f"
  "$fastsum -a md5 $f"
  "$fastsum -a md5@8M $f"
  "$fastsum -a sha256@8M $f"
  "$fastsum -a md5@8M,crc64nvme,sha256@8M $f"
  "md5sum $f"
  "taskset -c 0 $fastsum -a md5@8M $f"
  "taskset -c 0 md5sum $f"
  "$fastsum -a sha256 $f"
  "$fastsum -c $dir/etag"
  "$fastsum -a crc32c@8M $f"
)
if [ -n "${BASELINE:-}" ]; then
  names+=(base-md5 base-crc64nvme base-crc32c@8M)
  cmds+=("$BASELINE -a md5 $f" "$BASELINE -a crc64nvme $f" "$BASELINE -a crc32c@8M $f")
fi
prepare=true
command -v vmtouch > /dev/null && prepare="vmtouch -qt $f"
alternate "$dir" "$rounds" "$runs" "$prepare" "${cmds[@]}"

echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $mib MiB random file in $base; $rounds rounds of $runs runs; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
ratios=(
  "crc64nvme/xxh3<=1.1=CRC-64/NVME ÷ XXH3"
  "crc32c/xxh3<=1.1=CRC-32C ÷ XXH3"
  "all3/etag+crc64nvme+sha256@8M<=1.1=ETag + CRC-64/NVME + SHA-256@8M ÷ slowest alone"
  "etag/md5sum<=0.25=ETag (md5@8M) ÷ md5sum"
  "etag-1core/md5sum-1core<=0.5=ETag (md5@8M) ÷ md5sum, one core"
  "sha256@8M/sha256<=0.6=SHA-256@8M ÷ SHA-256"
  "etag-check/md5sum<=0.5=bare ETag check line ÷ md5sum"
)
if [ -n "${BASELINE:-}" ]; then
  ratios+=(
    "md5/base-md5<=1.0=MD5 ÷ baseline's"
    "crc64nvme/base-crc64nvme<=1.05=CRC-64/NVME ÷ baseline's"
    "crc32c@8M/base-crc32c@8M<=1.05=composite CRC-32C ÷ baseline's"
  )
fi
python3 benches/sides.py "$dir" "$rounds" "${names[@]}" -- "${cmds[@]}" -- "${ratios[@]}"
