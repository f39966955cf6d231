#!/usr/bin/env bash
# A slow block device (issue 30): seed 000's table, cold, on a loop device
# holding an ext4 image, its reads throttled by the cgroup (v1 blkio or v2
# io.max) of the command measured: fastsum's three modes (bytewise, sync,
# threaded; MD5) and md5sum over one 64 MiB file; then 1,000 files of
# 1-64 KiB: fastsum (-r and with the names), md5sum and find | xargs md5sum.
# The page cache is emptied of the files before every run (vmtouch -e; the
# loop device reads its image with direct I/O, so the image is not cached
# either).
#
#   sudo benches/blockdev.sh [hdd|ssd|MB/S:IOPS] [RUNS]   # default: hdd 5
#
# Profiles (seed 000's disks, from its sync column: 64 MiB in 975 ms and in
# 121 ms): hdd = 70 MB/s and 150 read requests a second, ssd = 550 MB/s and
# 20,000. Needs root, losetup, mkfs.ext4, vmtouch and hyperfine. Each
# hyperfine run holds /tmp/fastsum-bench.lock (benches/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/lib.sh
profile=${1:-hdd}
runs=${2:-5}
case "$profile" in
  hdd) bps=70000000 iops=150 ;;
  ssd) bps=550000000 iops=20000 ;;
  *:*) bps=$((${profile%%:*} * 1000000)) iops=${profile#*:} ;;
  *) echo "usage: $0 [hdd|ssd|MB/S:IOPS] [RUNS]" >&2; exit 2 ;;
esac
need hyperfine vmtouch losetup mkfs.ext4 flock
cargo build --release --quiet
fastsum=$(realpath target/release/fastsum)
work=$(mktemp -d)
mnt="$work/mnt"
mkdir "$mnt"
loop=""
cg=""
cleanup() {
  umount "$mnt" 2>/dev/null || true
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null || true
  [ -n "$cg" ] && rmdir "$cg" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
truncate -s 256M "$work/image"
mkfs.ext4 -q -F "$work/image"
loop=$(losetup --direct-io=on -f --show "$work/image")
mount "$loop" "$mnt"
head -c 67108864 /dev/urandom > "$mnt/random_bytes.bin"
python3 - "$mnt/many" <<'EOF2'
import os, random, sys
root = sys.argv[1]
os.makedirs(root)
rnd = random.Random(30)
for i in range(1000):
    with open(os.path.join(root, "f%04d" % i), "wb") as f:
        f.write(os.urandom(rnd.randint(1024, 64 * 1024)))
EOF2
sync
dev=$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ')
# the cgroup every measured command runs in, its reads of the device throttled
if [ -d /sys/fs/cgroup/blkio ]; then
  cg=/sys/fs/cgroup/blkio/fastsum-bench-$$
  mkdir "$cg"
  echo "$dev $bps" > "$cg/blkio.throttle.read_bps_device"
  echo "$dev $iops" > "$cg/blkio.throttle.read_iops_device"
else
  cg=/sys/fs/cgroup/fastsum-bench-$$
  mkdir "$cg"
  echo "$dev rbps=$bps riops=$iops" > "$cg/io.max"
fi
in_cg() { echo "sh -c 'echo \$\$ > $cg/cgroup.procs && $*'"; }
file="$mnt/random_bytes.bin"
echo "# $profile: $((bps / 1000000)) MB/s, $iops reads/s; cold 64 MiB file; MD5"
locked hyperfine -N --style basic -r "$runs" --prepare "vmtouch -qe $file" \
  -n bytewise "$(in_cg "$fastsum" -m bytewise "$file")" \
  -n sync "$(in_cg "$fastsum" -m sync "$file")" \
  -n threaded "$(in_cg "$fastsum" "$file")" \
  -n md5sum "$(in_cg md5sum "$file")"
many="$mnt/many"
echo "# $profile: 1,000 files of 1-64 KiB, cold; MD5"
locked hyperfine -N --style basic -r "$runs" --prepare "vmtouch -qe $many" \
  -n 'fastsum -r' "$(in_cg "$fastsum" -r "$many")" \
  -n 'fastsum DIR/*' "$(in_cg "cd $many && $fastsum f*")" \
  -n 'md5sum DIR/*' "$(in_cg "cd $many && md5sum f*")" \
  -n 'find | xargs md5sum' "$(in_cg "find $many -type f -print0 | xargs -0 md5sum")"
