# Shared by the storage benches (netfs.sh, remote.sh, blockdev.sh); sourced
# by them after they cd to the repository's root. Not a command.
#
#   need TOOL...          exit unless every TOOL is installed
#   build_slowfs          build fastsum and slowfs (release): sets $fastsum, $slowfs
#   build_fastsum         fastsum's release build, or $FASTSUM when set:
#                         sets $fastsum
#   slowfs_workdir        a temporary $work with $work/src and the mount point
#                         $mnt, unmounted and removed at exit
#   mount_slowfs ARG...   serve $work/src at $mnt (slowfs ARG...) in the
#                         background, wait for the mount: sets $slowfs_pid
#   unmount_slowfs        unmount $mnt and wait for slowfs to end
#   netfs_tree            netfs.sh's and realnet.sh's files in $work/src:
#                         many/ (1,000 files of 1-64 KiB), many.md5, big
#                         (64 MiB)
#   locked CMD...         run CMD holding /tmp/fastsum-bench.lock, so timed
#                         runs of different benchmarks never overlap
#   random_data BASE PREFIX MIB
#                         a temporary $dir in BASE (removed at exit) with
#                         $f, MIB MiB of random bytes
#   alternate DIR ROUNDS RUNS PREPARE CMD...
#                         hyperfine, locked, in ROUNDS rounds of RUNS runs
#                         of every CMD (PREPARE before each run), each round
#                         starting one command later: DIR/rN.json, for
#                         benches/sides.py; under `chrt -f 10` when RT=1

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

build_fastsum() {
  if [ -n "${FASTSUM:-}" ]; then
    fastsum=$(realpath "$FASTSUM")
  else
    cargo build --release --quiet
    fastsum=$(realpath target/release/fastsum)
  fi
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

netfs_tree() {
  mkdir "$work/src/many"
  python3 - "$work/src" <<'EOF'
import os, random, sys
root = sys.argv[1]
rnd = random.Random(30)
for i in range(1000):
    with open(os.path.join(root, "many", "f%04d" % i), "wb") as f:
        f.write(os.urandom(rnd.randint(1024, 64 * 1024)))
with open(os.path.join(root, "big"), "wb") as f:
    f.write(os.urandom(64 << 20))
EOF
  (cd "$work/src/many" && md5sum f* > ../many.md5)
}

locked() {
  flock -o /tmp/fastsum-bench.lock "$@"
}

# A real network file system client (issue 41): sshfs over OpenSSH, the
# server a throwaway sshd on 127.0.0.1 behind benches/delayproxy.py.
#
#   realnet_workdir       like slowfs_workdir, and the throwaway sshd (own
#                         config, host key and root login by a throwaway key,
#                         127.0.0.1:$sshd_port), all ended at exit
#   mount_realnet RTT_MS [MB/S]
#                         mount $work/src at $mnt through sshfs behind the
#                         proxy (each direction RTT_MS/2; MB/S a direction)
#   unmount_realnet       unmount $mnt and end the proxy
#   side_by_side NAME RUNS CMD...
#                         hyperfine's -n/command pairs CMD, one call per
#                         round (the commands take turns; see many.sh),
#                         each round's run held under the lock: prints
#                         rounds.py's rows
benches=$(pwd)/benches

realnet_workdir() {
  need sshfs ssh-keygen fusermount3 python3
  work=$(mktemp -d)
  mnt="$work/mnt"
  mkdir -p "$work/src" "$mnt" /run/sshd
  sshd_port=${SSHD_PORT:-2222}
  ssh-keygen -q -t ed25519 -N '' -f "$work/host"
  ssh-keygen -q -t ed25519 -N '' -f "$work/user"
  cp "$work/user.pub" "$work/authorized"
  cat > "$work/sshd_config" <<EOF2
Port $sshd_port
ListenAddress 127.0.0.1
HostKey $work/host
AuthorizedKeysFile $work/authorized
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
Subsystem sftp internal-sftp
EOF2
  /usr/sbin/sshd -D -e -f "$work/sshd_config" 2>"$work/sshd.log" &
  sshd_pid=$!
  proxy_pid=
  trap 'cd /; fusermount3 -u -z "$mnt" 2>/dev/null || true
        [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
        kill "$sshd_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
}

mount_realnet() {
  local half args=()
  half=$(python3 -c "print($1 / 2)")
  [ -n "${2:-}" ] && args=(--bandwidth "$2")
  python3 "$benches/delayproxy.py" 0 "$sshd_port" "$half" "${args[@]}" --lifetime 7200 \
    > "$work/proxy.out" &
  proxy_pid=$!
  for _ in $(seq 100); do [ -s "$work/proxy.out" ] && break; sleep 0.05; done
  local port
  port=$(awk '{print $2}' "$work/proxy.out")
  sshfs "root@127.0.0.1:$work/src" "$mnt" -p "$port" -o "IdentityFile=$work/user" \
    -o StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,LogLevel=ERROR
}

unmount_realnet() {
  fusermount3 -u "$mnt"
  kill "$proxy_pid"
  wait "$proxy_pid" 2>/dev/null || true
  proxy_pid=
}

side_by_side() {
  local name=$1 runs=$2 round jsons=(); shift 2
  for ((round = 0; round < runs; round++)); do
    jsons+=("$work/$name.$round.json")
    locked hyperfine -N --runs 1 --export-json "${jsons[-1]}" "$@" >/dev/null
  done
  python3 "$benches/rounds.py" "$name" "${jsons[@]}"
}

random_data() {
  dir=$(mktemp -d "$1/$2.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
  f=$dir/data
  head -c "$(($3 * 1024 * 1024))" /dev/urandom > "$f"
}

alternate() {
  local dir=$1 rounds=$2 runs=$3 prepare=$4 r i
  shift 4
  local cmds=("$@") order rt=()
  [ "${RT:-0}" = 1 ] && rt=(chrt -f 10)
  for r in $(seq "$rounds"); do
    order=()
    for i in "${!cmds[@]}"; do order+=("${cmds[$(((i + r) % ${#cmds[@]}))]}"); done
    flock -o /tmp/fastsum-bench.lock "${rt[@]}" \
      hyperfine -N -w 1 -r "$runs" --prepare "$prepare" --export-json "$dir/r$r.json" \
      "${order[@]}" > /dev/null 2>> "$dir/warnings" || { cat "$dir/warnings" >&2; return 1; }
  done
}
