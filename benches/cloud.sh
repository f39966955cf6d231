#!/usr/bin/env bash
# The goals of issue 32 (the digests object stores report), on one warm
# 1 GiB random file (in /dev/shm by default): CRC-64/NVME and CRC-32C
# against XXH3 (goal: ≤ 1.1×), the S3 ETag over 8 MiB parts against MD5
# (≤ 1.05×), and the ETag, CRC-64/NVME and composite SHA-256 in one read
# against the slowest of them alone (≤ 1.1×). hyperfine in ROUNDS rounds
# of RUNS runs of every command, the commands alternating from round to
# round, under the bench lock; prints the median of every run of each
# command, its spread (min–max), and each goal's ratio: the median of the
# rounds' ratios, and their range.
#
#   benches/cloud.sh [MIB, default 1024] [ROUNDS, default 5] [RUNS, default 3]
#
# Needs the release build (cargo build --release), hyperfine, python3.

set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-1024}
rounds=${2:-5}
runs=${3:-3}
fastsum=$PWD/target/release/fastsum
[ -x "$fastsum" ] || { echo "no $fastsum (cargo build --release)" >&2; exit 2; }
base=${CLOUD_DIR:-/dev/shm}
dir=$(mktemp -d "$base/fastsum-cloud.XXXXXX")
trap 'rm -rf "$dir"' EXIT
f=$dir/data
head -c "$((mib * 1024 * 1024))" /dev/urandom > "$f"

names=(xxh3 crc64nvme crc32c md5 etag sha256@8M all3)
cmds=(
  "$fastsum -a xxh3 $f"
  "$fastsum -a crc64nvme $f"
  "$fastsum -a crc32c $f"
  "$fastsum -a md5 $f"
  "$fastsum -a md5@8M $f"
  "$fastsum -a sha256@8M $f"
  "$fastsum -a md5@8M,crc64nvme,sha256@8M $f"
)
prepare=true
command -v vmtouch > /dev/null && prepare="vmtouch -qt $f"
for r in $(seq "$rounds"); do
  # alternate: each round starts one command later
  order=()
  for i in "${!cmds[@]}"; do order+=("${cmds[$(((i + r) % ${#cmds[@]}))]}"); done
  flock -o /tmp/fastsum-bench.lock \
    hyperfine -N -w 1 -r "$runs" --prepare "$prepare" --export-json "$dir/r$r.json" \
    "${order[@]}" > /dev/null 2>> "$dir/warnings"
done

echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $mib MiB random file in $base; $rounds rounds of $runs runs; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
python3 - "$dir" "$rounds" "${names[@]}" -- "${cmds[@]}" <<'EOF'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
sep = sys.argv.index("--")
names, cmds = sys.argv[3:sep], sys.argv[sep + 1:]
per = {n: [] for n in names}      # every run's time
med = {n: [] for n in names}      # each round's median
for r in range(1, rounds + 1):
    res = {x["command"]: x for x in json.load(open(f"{d}/r{r}.json"))["results"]}
    for n, c in zip(names, cmds):
        per[n] += res[c]["times"]
        med[n].append(res[c]["median"])
print("| command | median (s) | min–max (s) |")
print("|---|---:|---:|")
for n, c in zip(names, cmds):
    t = per[n]
    print(f"| `fastsum {c.split(' ', 1)[1].rsplit(' ', 1)[0]}` | {statistics.median(t):.3f} | {min(t):.3f}–{max(t):.3f} |")
def ratio(a, b, goal, what):
    rs = [x / y for x, y in zip(med[a], b)]
    m = statistics.median(rs)
    print(f"| {what} | {m:.3f} | {min(rs):.3f}–{max(rs):.3f} | ≤ {goal} | {'met' if m <= goal else 'not met'} |")
print()
print("| goal | × (median of rounds) | range | goal | |")
print("|---|---:|---:|---:|---|")
ratio("crc64nvme", med["xxh3"], 1.1, "CRC-64/NVME ÷ XXH3")
ratio("crc32c", med["xxh3"], 1.1, "CRC-32C ÷ XXH3")
ratio("etag", med["md5"], 1.05, "ETag (md5@8M) ÷ MD5")
slowest = [max(x) for x in zip(med["etag"], med["crc64nvme"], med["sha256@8M"])]
ratio("all3", slowest, 1.1, "ETag + CRC-64/NVME + SHA-256@8M ÷ slowest alone")
EOF
