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
cpu = {n: [] for n in names}      # each round's mean user + system
for r in range(1, rounds + 1):
    res = {x["command"]: x for x in json.load(open(f"{d}/r{r}.json"))["results"]}
    for n, c in zip(names, cmds):
        cpu[n].append(res[c]["user"] + res[c]["system"])
print("| command | median (s) | min–max (s) | CPU (s) |")
print("|---|---:|---:|---:|")
for n, c in zip(names, cmds):
    t = per[n]
    words = [w.rsplit("/", 1)[-1] if "/" in w else w for w in c.split(" ")]
    shown = "baseline " + " ".join(words[1:]) if n.startswith("base-") else " ".join(words)
    print(f"| `{shown}` | {statistics.median(t):.3f} | {min(t):.3f}–{max(t):.3f} | {statistics.median(cpu[n]):.3f} |")
def ratio(a, b, goal, what):
    rs = [x / y for x, y in zip(med[a], b)]
    m = statistics.median(rs)
    print(f"| {what} | {m:.3f} | {min(rs):.3f}–{max(rs):.3f} | ≤ {goal} | {'met' if m <= goal else 'not met'} |")
print()
print("| goal | × (median of rounds) | range | goal | |")
print("|---|---:|---:|---:|---|")
ratio("crc64nvme", med["xxh3"], 1.1, "CRC-64/NVME ÷ XXH3")
ratio("crc32c", med["xxh3"], 1.1, "CRC-32C ÷ XXH3")
slowest = [max(x) for x in zip(med["etag"], med["crc64nvme"], med["sha256@8M"])]
ratio("all3", slowest, 1.1, "ETag + CRC-64/NVME + SHA-256@8M ÷ slowest alone")
ratio("etag", med["md5sum"], 0.25, "ETag (md5@8M) ÷ md5sum")
ratio("etag-1core", med["md5sum-1core"], 0.5, "ETag (md5@8M) ÷ md5sum, one core")
ratio("sha256@8M", med["sha256"], 0.6, "SHA-256@8M ÷ SHA-256")
ratio("etag-check", med["md5sum"], 0.5, "bare ETag check line ÷ md5sum")
if "base-md5" in med:
    ratio("md5", med["base-md5"], 1.0, "MD5 ÷ baseline's")
    ratio("crc64nvme", med["base-crc64nvme"], 1.05, "CRC-64/NVME ÷ baseline's")
    ratio("crc32c@8M", med["base-crc32c@8M"], 1.05, "composite CRC-32C ÷ baseline's")
EOF
