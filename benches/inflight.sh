#!/usr/bin/env bash
# How many in flight, and where the floor is (issue 41 item 3): through
# sshfs behind benches/delayproxy.py (as realnet.sh), 1,000 files of
# 1-64 KiB hashed by `xargs -P N -n 1000/N md5sum` and by `fastsum *`
# ("auto": its own count; N or N,M: FASTSUM_IN_FLIGHT=N[,M] set, which only
# the experiment's build of issue 41 read: N opens and M reads in flight,
# docs/BENCHMARKS.md), each command's wall time and the CPU time of
# everything involved: the command, sshfs and its ssh, sshd and its SFTP
# server, and the proxy. On two cores, when the link's own processes use
# them up, no client gets faster: that is the floor of the ratios.
#
#   sudo benches/inflight.sh [ROUNDS] [RTT_MS]...   # defaults: 3, 1 10
#   FASTSUM=PATH (default: a release build); COUNTS="16 32 auto" (default auto);
#   DIRECT=1 adds rows at 0 ms with and without the proxy (is the proxy
#   the bottleneck?); PROXY=FILE another delayproxy.py; SERIAL=1 adds `md5sum *`; SSHD_PORT as realnet.sh
#
# Prints, per round trip and command, the median wall time over ROUNDS
# (commands taking turns) and the medians of each process group's CPU
# seconds in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift || true
rtts=("$@")
((${#rtts[@]})) || rtts=(1 10)
counts=(${COUNTS:-auto})
. benches/lib.sh
need flock
build_fastsum
realnet_workdir
netfs_tree

# CPU ticks (user + system) of the processes $@ and their descendants
ticks() {
  python3 - "$@" <<'PY'
import os, sys
roots = {int(p) for p in sys.argv[1:] if p}
parent, cpu = {}, {}
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        f = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    parent[int(d)] = int(f[1])
    cpu[int(d)] = int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
def under(p):
    while p > 1:
        if p in roots:
            return True
        p = parent.get(p, 0)
    return False
print(sum(c for p, c in cpu.items() if under(p)))
PY
}

# one run of "$2" (label $1): wall, command CPU, sshfs+ssh, sshd, proxy
measure() {
  local a b c d e f t0 t1 out
  a=$(ticks "$sshfs_pid"); b=$(ticks "$sshd_pid"); c=$(ticks "$proxy_pid")
  out=$( { /usr/bin/time -f "%e %U %S" sh -c "$2" >/dev/null; } 2>&1 | tail -1)
  d=$(ticks "$sshfs_pid"); e=$(ticks "$sshd_pid"); f=$(ticks "$proxy_pid")
  local hz; hz=$(getconf CLK_TCK)
  echo "$1	$out $(((d - a))) $(((e - b))) $(((f - c))) $hz"
}

table() {
  python3 - "$@" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    label, v = line.rstrip("\n").split("\t")
    e, u, s, a, b, c, hz = v.split()
    rows.setdefault(label, []).append((float(e), float(u) + float(s),
        int(a) / int(hz), int(b) / int(hz), int(c) / int(hz)))
print("| command | wall s (median, range) | its CPU s | sshfs+ssh | sshd+sftp | proxy | all CPU ÷ wall |")
print("|---|---:|---:|---:|---:|---:|---:|")
for label, rs in rows.items():
    m = [st.median(x[i] for x in rs) for i in range(5)]
    lo, hi = min(x[0] for x in rs), max(x[0] for x in rs)
    busy = (m[1] + m[2] + m[3] + m[4]) / m[0]
    print(f"| {label} | {m[0]:.3f} ({lo:.3f}–{hi:.3f}) | {m[1]:.2f} | {m[2]:.2f} | {m[3]:.2f} | {m[4]:.2f} | {busy:.2f} |")
PY
}

# mount as mount_realnet, or straight to sshd without the proxy (RTT "direct")
mount_link() {
  if [ "$1" = direct ]; then
    proxy_pid=
    sshfs "root@127.0.0.1:$work/src" "$mnt" -p "$sshd_port" -o "IdentityFile=$work/user" \
      -o StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,LogLevel=ERROR
  else
    # (a second proxy of a run was seen not to answer at once: tried 3 times)
    local try port
    for try in 1 2 3; do
      python3 "${PROXY:-$benches/delayproxy.py}" 0 "$sshd_port" "$(python3 -c "print($1 / 2)")" \
        --lifetime 7200 > "$work/proxy.out" &
      proxy_pid=$!
      for _ in $(seq 200); do [ -s "$work/proxy.out" ] && break; sleep 0.05; done
      port=$(awk '{print $2}' "$work/proxy.out")
      [ -n "$port" ] && sshfs "root@127.0.0.1:$work/src" "$mnt" -p "$port" \
        -o "IdentityFile=$work/user" \
        -o StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,LogLevel=ERROR &&
        break
      echo "proxy or sshfs failed (try $try)" >&2
      kill "$proxy_pid"
      wait "$proxy_pid" 2>/dev/null || true
      ((try < 3)) || exit 1
      sleep 1
    done
  fi
  sshfs_pid=$(pgrep -n -f "^sshfs root@127.0.0.1:$work/src")
}

unmount_link() {
  fusermount3 -u "$mnt"
  if [ -n "$proxy_pid" ]; then
    kill "$proxy_pid"
    wait "$proxy_pid" 2>/dev/null || true
  fi
  proxy_pid=
}

[ -n "${DIRECT:-}" ] && rtts=(direct 0 "${rtts[@]}")
for rtt in "${rtts[@]}"; do
  mount_link "$rtt"
  echo "# sshfs, $rtt ms round trip, $rounds rounds, $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
  cd "$mnt/many"
  : > "$work/runs-$rtt"
  for ((r = 0; r < rounds; r++)); do
    for n in "${counts[@]}"; do
      [[ ! "$n" =~ ^[0-9]+$ ]] || locked bash -c "$(declare -f ticks measure); sshfs_pid=$sshfs_pid sshd_pid=$sshd_pid proxy_pid=$proxy_pid measure 'xargs -P$n -n $(((1000 + n - 1) / n))' 'ls | xargs -P$n -n $(((1000 + n - 1) / n)) md5sum'" >> "$work/runs-$rtt"
      env=; [ "$n" = auto ] || env="FASTSUM_IN_FLIGHT=$n"
      locked bash -c "$(declare -f ticks measure); sshfs_pid=$sshfs_pid sshd_pid=$sshd_pid proxy_pid=$proxy_pid measure 'fastsum $n' '$env $fastsum f*'" >> "$work/runs-$rtt"
    done
    [ -z "${SERIAL:-}" ] || locked bash -c "$(declare -f ticks measure); sshfs_pid=$sshfs_pid sshd_pid=$sshd_pid proxy_pid=$proxy_pid measure 'md5sum *' 'md5sum f*'" >> "$work/runs-$rtt"
  done
  # (and where fastsum's own count settled, one run's --stats)
  [[ " ${counts[*]} " != *" auto "* ]] || "$fastsum" --stats f* 2>&1 >/dev/null | grep "in flight"
  cd /
  table "$work/runs-$rtt"
  unmount_link
done
