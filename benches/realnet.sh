#!/usr/bin/env bash
# A real network file system client (issue 41): fastsum against its peers
# through sshfs over OpenSSH, the server a throwaway sshd on 127.0.0.1
# behind benches/delayproxy.py (each direction delayed half the round
# trip; this kernel has no netem), at each round trip given: 1,000 files
# of 1-64 KiB (`fastsum *` against `ls | xargs -P16 -n 63 md5sum` and
# `md5sum *`; -c; -r against find | xargs), and one 64 MiB file (MD5,
# SHA-256, BLAKE3 and XXH3) against four parallel dd of its quarters. The commands take turns, one hyperfine
# call a round (benches/lib.sh's side_by_side), and the ratios are of one
# run's means, their spread from the two σ.
#
#   sudo benches/realnet.sh [RUNS] [MB/S] [RTT_MS]...   # defaults: 3, unlimited, 1 10
#   FASTSUM=PATH runs that binary instead of building one; BASE=PATH adds
#   that binary's `*`, -c and -r (and 64 MiB) runs beside, as `base ...`;
#   SSHD_PORT=2222 (the default) picks sshd's port; each round trip's
#   rounds default to RUNS (RUNS_10=1 sets them for 10 ms, and so on)
#
# Needs root (sshd, FUSE), sshfs, openssh-server, fuse3, hyperfine and
# python3; builds fastsum. sshfs is mounted with its defaults (its own
# attribute and listing cache, 20 s): what a user gets.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
mbs=${2:-}
shift 2 2>/dev/null || shift $#
rtts=("$@")
((${#rtts[@]})) || rtts=(1 10)
. benches/lib.sh
need hyperfine flock
build_fastsum
realnet_workdir
netfs_tree

# "fastsum ÷ peer" for each pair of labels $2/$3 in rows $1
ratios() {
  python3 - "$@" <<'PY'
import math, sys
rows = {}
for line in open(sys.argv[1]):
    _, cmd, mean, sd = line.rstrip("\n").split("\t")
    rows[cmd] = (float(mean), float(sd))
pairs = sys.argv[2:]
for ours, theirs in zip(pairs[::2], pairs[1::2]):
    (a, sa), (b, sb) = rows[ours], rows[theirs]
    r = a / b
    spread = r * math.hypot(sa / a, sb / b)
    label = f"`{ours}` ÷ `{theirs}`".replace("|", "\\|")
    print(f"| {label} | {a:.3f} s | {b:.3f} s | {r:.2f} ± {spread:.2f} |")
PY
}

for rtt in "${rtts[@]}"; do
  var=RUNS_${rtt//./_}
  n=${!var:-$runs}
  mount_realnet "$rtt" "$mbs"
  echo "# sshfs, ${rtt} ms round trip${mbs:+, $mbs MB/s}, $n rounds, $(date -u +%H:%M) UTC"
  cd "$mnt/many"
  base_rows=()
  if [ -n "${BASE:-}" ]; then
    base=$(realpath "$BASE")
    base_rows=(-n 'base *' "sh -c '$base f* >/dev/null'"
      -n 'base -c --quiet' "$base --quiet -c ../many.md5"
      -n 'base -r' "sh -c '$base -r . >/dev/null'")
  fi
  side_by_side "many-$rtt" "$n" "${base_rows[@]}" \
    -n 'md5sum *' "sh -c 'md5sum f* >/dev/null'" \
    -n 'ls | xargs -P16 -n 63 md5sum' "sh -c 'ls | xargs -P16 -n 63 md5sum >/dev/null'" \
    -n 'fastsum *' "sh -c '$fastsum f* >/dev/null'" \
    -n 'md5sum -c --quiet' "md5sum --quiet -c ../many.md5" \
    -n 'fastsum -c --quiet' "$fastsum --quiet -c ../many.md5" \
    -n 'fastsum -r' "sh -c '$fastsum -r . >/dev/null'" \
    -n 'find | xargs -0 -P16 -n 63 md5sum' \
    "sh -c 'find . -type f -print0 | xargs -0 -P16 -n 63 md5sum >/dev/null'" \
    > "$work/rows-$rtt"
  cd "$mnt"
  quarters="for q in 0 1 2 3; do dd if=big of=/dev/null bs=1M skip=\$((q*16)) count=16 status=none & done; wait"
  side_by_side "big-$rtt" "$n" \
    -n 'four dd of the quarters' "bash -c '$quarters'" \
    -n 'md5sum big' "md5sum big" \
    -n 'fastsum big' "$fastsum big" \
    -n 'fastsum -a sha256 big' "$fastsum -a sha256 big" \
    -n 'fastsum -a blake3 big' "$fastsum -a blake3 big" \
    -n 'fastsum -a xxh3 big' "$fastsum -a xxh3 big" \
    >> "$work/rows-$rtt"
  cd /
  echo "| workload | fastsum | peer | fastsum ÷ peer |"
  echo "|---|---:|---:|---:|"
  ratios "$work/rows-$rtt" 'fastsum *' 'ls | xargs -P16 -n 63 md5sum' 'fastsum *' 'md5sum *' \
    'fastsum -c --quiet' 'md5sum -c --quiet' 'fastsum -r' 'find | xargs -0 -P16 -n 63 md5sum' \
    'fastsum big' 'four dd of the quarters' 'fastsum big' 'md5sum big' \
    'fastsum -a sha256 big' 'four dd of the quarters' \
    'fastsum -a blake3 big' 'four dd of the quarters' \
    'fastsum -a xxh3 big' 'four dd of the quarters'
  if [ -n "${BASE:-}" ]; then
    ratios "$work/rows-$rtt" 'fastsum *' 'base *' 'fastsum -c --quiet' 'base -c --quiet' \
      'fastsum -r' 'base -r'
  fi
  unmount_realnet
done
