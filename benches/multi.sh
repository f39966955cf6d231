#!/bin/sh
# Several algorithms in one read (issue 13): one file, warm then cold,
# side by side in one hyperfine run each:
#   fastsum -a md5,sha1,sha256,sha512 FILE
#   the four single fastsum runs, one after the other (their sum)
#   rhash --md5 --sha1 --sha256 --sha512 FILE
#   md5sum, sha1sum, sha256sum, sha512sum FILE, one after the other
# Warm: `vmtouch -t FILE` before each run (this VM's page cache drops idle
# pages within seconds). Cold: `vmtouch -e FILE` before each run, and before each single run of the
# sequences (each of them reads from disk, as four separate passes would).
#
# Usage: benches/multi.sh [SIZE_MIB] [WARM_RUNS] [COLD_RUNS] > table.md
# Needs: hyperfine, rhash, vmtouch, GNU coreutils; a release build
# (cargo build --release) or FASTSUM=/path/to/fastsum.
set -eu

size=${1:-1024}
warm_runs=${2:-5}
cold_runs=${3:-3}
bin=${FASTSUM:-$(pwd)/target/release/fastsum}
for tool in hyperfine rhash vmtouch md5sum python3; do
    command -v "$tool" >/dev/null || { echo "multi.sh: $tool is missing" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "multi.sh: no $bin (cargo build --release)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/fastsum-multi.XXXXXX")
trap 'rm -rf "$dir"' EXIT
f=$dir/data
head -c "$((size * 1024 * 1024))" /dev/urandom >"$f"
sync "$f" 2>/dev/null || sync

# $1: a command run before each single run inside the sequences ("" or an eviction)
commands() {
    ev=$1
    printf '%s\n' \
        "$bin -a md5,sha1,sha256,sha512 $f" \
        "${ev}$bin -a md5 $f; ${ev}$bin -a sha1 $f; ${ev}$bin -a sha256 $f; ${ev}$bin -a sha512 $f" \
        "rhash --md5 --sha1 --sha256 --sha512 $f" \
        "${ev}md5sum $f; ${ev}sha1sum $f; ${ev}sha256sum $f; ${ev}sha512sum $f"
}

run() { # $1 name, $2 runs, $3 prepare (cold: the eviction), $4 eviction inside sequences
    name=$1 runs=$2 prepare=$3 ev=$4
    old_ifs=$IFS
    IFS='
'
    # the commands, one per line, split on newlines only
    # shellcheck disable=SC2046
    set -- $(commands "$ev")
    IFS=$old_ifs
    set -- --warmup 0 --prepare "$prepare" "$@"
    hyperfine --style basic --runs "$runs" --export-json "$dir/$name.json" \
        --command-name "fastsum -a md5,sha1,sha256,sha512" \
        --command-name "4 single fastsum runs (sum)" \
        --command-name "rhash --md5 --sha1 --sha256 --sha512" \
        --command-name "md5sum; sha1sum; sha256sum; sha512sum" \
        "$@" >&2
}

# MULTI_PHASES: which tables to make (default both)
for phase in ${MULTI_PHASES:-warm cold}; do
    case $phase in
        # the VM's page cache drops idle pages (docs/BENCHMARKS.md): reload first
        warm) run warm "$warm_runs" "vmtouch -qt $f" "" ;;
        cold) run cold "$cold_runs" "vmtouch -qe $f" "vmtouch -qe $f >/dev/null; " ;;
    esac
done

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end;" \
    "$size MiB random file; $(date -u +%Y-%m-%d)"
echo
python3 - "$dir/warm.json" "$dir/cold.json" <<'EOF'
import json, os, sys
def load(p):
    return json.load(open(p))["results"] if os.path.exists(p) else None
warm, cold = load(sys.argv[1]), load(sys.argv[2])
names = [r["command"] for r in (warm or cold)]
print("| command | warm (s) | × one read | CPU (s) | cold (s) | × one read | CPU (s) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for i, name in enumerate(names):
    row = [name]
    for res in (warm, cold):
        if res is None:
            row += ["—", "—", "—"]
            continue
        r, base = res[i], res[0]
        row += [f"{r['mean']:.2f} ± {r['stddev'] or 0:.2f}", f"{r['mean'] / base['mean']:.2f}",
                f"{r['user'] + r['system']:.2f}"]
    print("| " + " | ".join(row) + " |")
print()
for label, res in (("warm", warm), ("cold", cold)):
    if res is None:
        continue
    one, singles, rhash = (r["mean"] for r in res[:3])
    print(f"- {label}: one read = {one / singles:.2f} × the four single runs, "
          f"{one / rhash:.2f} × rhash")
EOF
