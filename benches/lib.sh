# Shared by the storage benches (netfs.sh, remote.sh, blockdev.sh); sourced
# by them after they cd to the repository's root. Not a command.
#
#   need TOOL...          exit unless every TOOL is installed
#   build_slowfs          build fastsum and slowfs (release): sets $fastsum, $slowfs
#   slowfs_workdir        a temporary $work with $work/src and the mount point
#                         $mnt, unmounted and removed at exit
#   mount_slowfs ARG...   serve $work/src at $mnt (slowfs ARG...) in the
#                         background, wait for the mount: sets $slowfs_pid
#   unmount_slowfs        unmount $mnt and wait for slowfs to end
#   locked CMD...         run CMD holding /tmp/fastsum-bench.lock, so timed
#                         runs of different benchmarks never overlap

need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 1; }
  done
}

build_slowfs() {
  cargo build --release --quiet
  (cd benches/slowfs && cargo build --release --quiet)
  fastsum=$(realpath target/release/fastsum)
  slowfs=$(realpath benches/slowfs/target/release/slowfs)
}

slowfs_workdir() {
  work=$(mktemp -d)
  mnt="$work/mnt"
  mkdir -p "$work/src" "$mnt"
  # (from outside the mount: a shell standing in it keeps it busy)
  trap 'cd /; fusermount3 -u "$mnt" 2>/dev/null || true; rm -rf "$work"' EXIT
}

mount_slowfs() {
  "$slowfs" "$work/src" "$mnt" "$@" &
  slowfs_pid=$!
  for _ in $(seq 100); do mountpoint -q "$mnt" && return; sleep 0.05; done
  echo "slowfs did not mount" >&2
  exit 1
}

unmount_slowfs() {
  fusermount3 -u "$mnt"
  wait "$slowfs_pid" 2>/dev/null || true
}

locked() {
  flock -o /tmp/fastsum-bench.lock "$@"
}
