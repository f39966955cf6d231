#!/usr/bin/env bash
# Many files at the speed of the hardware (issue 12): fastsum against md5sum
# on the workloads of a tree, warm cache, each workload one hyperfine run
# with every command side by side. Writes the markdown table to stdout and
# the means to docs/charts/peers.csv (benches/charts.py draws them).
#
#   benches/many.sh [--quick] [--baseline PATH]   # PATH: an older fastsum to compare
#
# The trees live in a temporary directory removed at exit. Needs hyperfine
# (apt-get install hyperfine) and, for truly warm runs, vmtouch; builds the
# release binary.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
baseline=""
while (($#)); do
  case "$1" in
    --quick) runs=2 ;;
    --baseline) baseline=$(realpath "$2"); shift ;;
    *) echo "usage: $0 [--quick] [--baseline PATH]" >&2; exit 2 ;;
  esac
  shift
done
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --quiet
fastsum=$(realpath target/release/fastsum)
csv=docs/charts/peers.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'EOF'
import os, random, sys
root = sys.argv[1]
rnd = random.Random(12)
def tree(name, sizes):
    d = os.path.join(root, name)
    os.makedirs(d)
    for i, n in enumerate(sizes):
        with open(os.path.join(d, "f%06d" % i), "wb") as f:
            f.write(os.urandom(n))
tree("many", [rnd.randint(1024, 200 * 1024) for _ in range(10000)])
tree("tiny", [rnd.randint(0, 64) for _ in range(100000)])
tree("mixed", [rnd.randint(0, 64 * 1024) for _ in range(5000)] + [100 << 20] * 3)
with open(os.path.join(root, "big"), "wb") as f:
    for _ in range(1024):
        f.write(os.urandom(1 << 20))
os.makedirs(os.path.join(root, "bigs"))
for i in range(4):
    with open(os.path.join(root, "bigs", "b%d" % i), "wb") as f:
        for _ in range(256):
            f.write(os.urandom(1 << 20))
EOF
(cd "$work/many" && md5sum f* > ../many.md5)

# The page cache of the VMs this runs on drops pages of an idle tree within
# seconds (docs/BENCHMARKS.md), which made "warm" runs part cold and noisy:
# with vmtouch, each run is preceded by loading the workload's files into
# the cache again.
warm() {
  if command -v vmtouch >/dev/null; then
    printf 'vmtouch -qt %q' "$1"
  else
    echo true
  fi
}

# one workload (its files: $2), every command side by side; prints
# "label<TAB>mean seconds<TAB>stddev" rows. The commands take turns: one
# hyperfine call per round runs each once (with a warm-up in the first),
# since hyperfine runs all of one command's runs before the next command's
# and the load on a shared VM changes within seconds, which biased the
# ratios (issue 22: the same binary 20% slower when it ran second).
bench() {
  local name=$1 files=$2; shift 2
  local round jsons=()
  for ((round = 0; round < runs; round++)); do
    local json="$work/$name.$round.json"
    local warmup=0
    ((round == 0)) && warmup=1
    hyperfine -N --prepare "$(warm "$files")" --warmup "$warmup" --runs 1 --export-json "$json" "$@" >/dev/null
    jsons+=("$json")
  done
  python3 benches/rounds.py "$name" "${jsons[@]}"
}

sh() { printf 'bash -c %q' "$1"; }
rows=$work/rows.tsv
: > "$rows"
with_base() { # the command for fastsum, then the baseline's, if any
  echo "$1"
  [ -n "$baseline" ] && echo "${1//$fastsum/$baseline}"
  true
}
mapfile -t c < <(with_base "$fastsum $work/big")
bench "1 GiB file" "$work/big" "${c[@]}" "md5sum $work/big" >> "$rows"
mapfile -t c < <(with_base "bash -c 'cd $work/many && $fastsum f* >/dev/null'")
bench "10,000 files of 1-200 KiB" "$work/many" "${c[@]}" \
  "bash -c 'cd $work/many && md5sum f* >/dev/null'" \
  "bash -c 'cd $work/many && ls | xargs -P2 -n 5000 md5sum >/dev/null'" >> "$rows"
mapfile -t c < <(with_base "bash -c 'cd $work/many && $fastsum -c ../many.md5 >/dev/null'")
bench "the same, -c" "$work/many" "${c[@]}" "bash -c 'cd $work/many && md5sum -c ../many.md5 >/dev/null'" >> "$rows"
mapfile -t c < <(with_base "bash -c 'cd $work/tiny && ls | xargs $fastsum >/dev/null'")
# (`xargs true`: what listing and passing the names costs without a tool,
# part of every tool's time here)
bench "100,000 files of 0-64 B" "$work/tiny" "${c[@]}" "bash -c 'cd $work/tiny && ls | xargs md5sum >/dev/null'" \
  "bash -c 'cd $work/tiny && ls | xargs true'" >> "$rows"
mapfile -t c < <(with_base "bash -c 'cd $work/mixed && $fastsum f* >/dev/null'")
bench "5,000 small files and 3 of 100 MiB" "$work/mixed" "${c[@]}" "bash -c 'cd $work/mixed && md5sum f* >/dev/null'" >> "$rows"
# several big files: each followed by another is mapped and hashed on a
# hasher of its own (docs/BENCHMARKS.md, "Big files side by side")
for algo in md5 sha256; do
  mapfile -t c < <(with_base "bash -c 'cd $work/bigs && $fastsum -a $algo b* >/dev/null'")
  bench "4 files of 256 MiB, ${algo^^}" "$work/bigs" "${c[@]}" \
    "bash -c 'cd $work/bigs && ${algo}sum b* >/dev/null'" >> "$rows"
done
# SHA across files (issue 22) and one SHA-256 stream against OpenSSL
for algo in sha256 sha1; do
  mapfile -t c < <(with_base "bash -c 'cd $work/many && $fastsum -a $algo f* >/dev/null'")
  bench "10,000 files of 1-200 KiB, ${algo^^}" "$work/many" "${c[@]}" \
    "bash -c 'cd $work/many && ${algo}sum f* >/dev/null'" >> "$rows"
done
# The same tree as a CPU without AVX-512 runs it (issue 22's machine): the
# SHA-NI kernels and MD5's AVX2 lanes, forced by their variables
for algo in sha256 sha1 md5; do
  case $algo in
    md5) path="FASTSUM_MD5_LANES=avx2" label="MD5 on AVX2 lanes" ;;
    *) path="FASTSUM_SHA_LANES=sha-ni-4" label="${algo^^} on SHA-NI alone" ;;
  esac
  mapfile -t c < <(with_base "env $path bash -c 'cd $work/many && $fastsum -a $algo f* >/dev/null'")
  bench "10,000 files of 1-200 KiB, $label" "$work/many" "${c[@]}" \
    "bash -c 'cd $work/many && ${algo}sum f* >/dev/null'" >> "$rows"
done
mapfile -t c < <(with_base "$fastsum -a sha256 $work/big")
bench "1 GiB file, SHA-256" "$work/big" "${c[@]}" "openssl dgst -sha256 $work/big" >> "$rows"

python3 - "$rows" "$csv" "$fastsum" "${baseline:-none}" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'EOF'
import sys
import re
rows_path, csv_path, fastsum, baseline, when, load = sys.argv[1:]
rows = [l.rstrip("\n").split("\t") for l in open(rows_path)]
def tool(cmd):
    if baseline != "none" and baseline in cmd:
        return "fastsum (baseline)"
    if fastsum in cmd:
        return "fastsum"
    if "xargs -P2" in cmd:
        return "xargs -P2 md5sum"
    if "xargs true" in cmd:
        return "ls and xargs alone"
    return re.search(r"openssl dgst|\w+sum( -c)?", cmd).group(0)
print(f"MD5 unless the workload names another algorithm, warm cache, hyperfine mean ± σ, {when}, load {load}; ratio = time / fastsum's in the same run.\n")
print("| workload | tool | time | ratio |\n|---|---|---:|---:|")
by = {}
for w, cmd, mean, sd in rows:
    by.setdefault(w, []).append((tool(cmd), float(mean), float(sd)))
with open(csv_path, "w") as out:
    out.write(f"# wall time (MD5 unless the workload names another algorithm), warm cache, mean of a hyperfine run per workload (benches/many.sh, {when}, load {load})\n")
    out.write("workload,tool,seconds\n")
    for w, tools in by.items():
        ours = next(m for t, m, _ in tools if t == "fastsum")
        for t, m, sd in tools:
            print(f"| {w} | {t} | {m:.3f} s ± {sd:.3f} | {m / ours:.2f} |")
            out.write(f"\"{w}\",{t},{m:.4f}\n")
EOF
python3 benches/charts.py peers >&2
