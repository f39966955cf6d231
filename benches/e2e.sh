#!/usr/bin/env bash
# End-to-end benchmarks: times the release binary with hyperfine and prints
# the tables of docs/BENCHMARKS.md as markdown. It exists so the
# seed studies (../shared/seeds/000_*, 002_*) and the peer comparison can be
# reproduced with one command on any machine; benches/pipeline.rs measures
# the same modes in-process.
#
#   benches/e2e.sh [--quick] [--sweep] [--out FILE]
#
#   (default)  table 1: seed 000, bytewise / sync / threaded on a 64 MiB file,
#                       warm and cold cache, --chunk 8K and the defaults
#              table 2: seed 002, speed factor sync/threaded at --chunk 16 … 64K
#                       for MD5 on a 1 GiB file, plus the in-process no-op series
#              table 3: fastsum against md5sum, sha256sum, sha512sum, openssl dgst,
#                       b3sum and rhash: a 1 GiB file warm and cold, 10,000 small files
#   --sweep    instead: the defaults study, MD5 on a 256 MiB file warm and cold:
#              --chunk, then --readahead × --pool, and -j on 10,000 small files
#   --quick    small files and single runs: a smoke test of about 1.5 minutes
#   --out F    also write the markdown to F
#
# Needs: cargo, python3, hyperfine, vmtouch (installed with apt-get when
# missing). Peers that are not installed are skipped with a message.
# Large files live in a temporary directory removed at exit.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
ARGS="$*"

QUICK=0 SWEEP=0 OUT=
while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=1 ;;
        --sweep) SWEEP=1 ;;
        --out) OUT=$2; shift ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "e2e.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

need() { # need TOOL PACKAGE: install PACKAGE with apt-get when TOOL is missing
    command -v "$1" >/dev/null && return
    echo "e2e.sh: installing $2" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y "$2" >&2; else sudo apt-get install -y "$2" >&2; fi
}
need hyperfine hyperfine
need vmtouch vmtouch
need python3 python3

if [ $QUICK = 1 ]; then
    MID_MIB=8 BIG_MIB=64 SMALL_FILES=500 NOOP_MIB=4
    RUNS=(--runs 1) SLOW_RUNS=(--runs 1) SWEEP_RUNS=(--runs 1)
else
    MID_MIB=64 BIG_MIB=1024 SMALL_FILES=10000 NOOP_MIB=64
    # bytewise and 16-byte reads on 1 GiB take tens of seconds per run
    RUNS=(--warmup 1 --runs 5) SLOW_RUNS=(--warmup 1 --runs 3) SWEEP_RUNS=(--warmup 1 --runs 3)
    # the sweep runs 24 configurations twice: a 256 MiB file keeps it near 10 min
    [ $SWEEP = 1 ] && BIG_MIB=256
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fastsum-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/json"

echo "e2e.sh: building the release binary" >&2
cargo build --release --locked --quiet
BIN=$ROOT/target/release/fastsum

echo "e2e.sh: writing test files under $TMP" >&2
head -c $((MID_MIB << 20)) /dev/urandom >"$TMP/mid.bin"
BIG=$TMP/big.bin
head -c $((BIG_MIB << 20)) /dev/urandom >"$BIG"
mkdir "$TMP/small"
# 10,000 files of 1 B … 16 KiB: a source tree, not a disk image
python3 - "$TMP/small" "$SMALL_FILES" <<'EOF'
import os, random, sys
random.seed(5)
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, f"f{i:05}"), "wb") as f:
        f.write(os.urandom(random.randint(1, 16384)))
EOF
sync

# bench NAME HYPERFINE-ARGS...: run hyperfine, keep its JSON as json/NAME.json
bench() {
    local name=$1; shift
    echo "e2e.sh: $name" >&2
    hyperfine --style basic --export-json "$TMP/json/$name.json" "$@" >&2
}
warm() { echo "vmtouch -qt $1"; }   # --prepare: load into the page cache
cold() { echo "vmtouch -qe $1"; }   # --prepare: evict from the page cache

if [ $SWEEP = 1 ]; then
    # --chunk with the default --readahead and --pool, then --readahead ×
    # --pool with the default --chunk: the chunk only sets the hash update
    # size, which interacts little with how blocks are read
    CHUNKS=16K,64K,256K,1M READAHEADS=64K,256K,1M,4M POOLS=2,4,8
    [ $QUICK = 1 ] && CHUNKS=16K,64K READAHEADS=256K,1M POOLS=2,4
    for cache in warm cold; do
        bench "sweep-chunk-$cache" "${SWEEP_RUNS[@]}" --prepare "$($cache "$BIG")" \
            -L chunk $CHUNKS -n "{chunk} default default" "$BIN --chunk {chunk} $BIG"
        bench "sweep-ra-$cache" "${SWEEP_RUNS[@]}" --prepare "$($cache "$BIG")" \
            -L ra $READAHEADS -L pool $POOLS -n "default {ra} {pool}" \
            "$BIN --readahead {ra} --pool {pool} $BIG"
        bench "jobs-$cache" "${RUNS[@]}" --prepare "$($cache "$TMP/small")" \
            -L j 1,2,3,4,8 -n "{j}" "cd $TMP/small && $BIN -j {j} *"
    done
else
    # table 1: seed 000
    for cache in warm cold; do
        bench "t1-$cache" "${RUNS[@]}" --prepare "$($cache "$TMP/mid.bin")" \
            -n bytewise "$BIN -m bytewise $TMP/mid.bin" \
            -n "sync 8K" "$BIN -m sync --chunk 8K $TMP/mid.bin" \
            -n "threaded 8K" "$BIN -m threaded --chunk 8K $TMP/mid.bin" \
            -n sync "$BIN -m sync $TMP/mid.bin" \
            -n threaded "$BIN -m threaded $TMP/mid.bin"
    done

    # table 2: seed 002, warm (as the seed's 6.6 GB/s NVMe), MD5
    for c in 16 64 256 1K 4K 64K; do
        bench "t2-$c" "${SLOW_RUNS[@]}" --prepare "$(warm "$BIG")" \
            -n sync "$BIN -a md5 -m sync --chunk $c $BIG" \
            -n threaded "$BIN -a md5 -m threaded --chunk $c $BIG"
    done
    echo "e2e.sh: no-op series (cargo bench --bench pipeline -- noop, $NOOP_MIB MiB)" >&2
    rm -rf target/criterion/noop
    FASTSUM_BENCH_MIB=$NOOP_MIB cargo bench --locked --quiet --bench pipeline -- noop >&2

    # table 3: peers, each next to fastsum with the same algorithm
    peers=()
    peer() { # peer ALGO NAME COMMAND...: add a peer if its tool is installed
        local algo=$1 name=$2 tool=$3
        if command -v "$tool" >/dev/null; then
            peers+=("$algo|$name|${*:3}")
        else
            echo "e2e.sh: $tool is not installed: skipping $name" >&2
        fi
    }
    peer md5 md5sum md5sum
    peer md5 "openssl dgst -md5" openssl dgst -md5
    peer md5 "rhash --md5" rhash --md5
    peer sha256 sha256sum sha256sum
    peer sha256 "openssl dgst -sha256" openssl dgst -sha256
    peer sha512 sha512sum sha512sum
    peer sha512 "openssl dgst -sha512" openssl dgst -sha512
    peer blake3 b3sum b3sum
    for set in big-warm big-cold small-warm; do
        case $set in
            big-warm) target=$BIG prep=$(warm "$BIG") ;;
            big-cold) target=$BIG prep=$(cold "$BIG") ;;
            small-warm) target='*' prep=$(warm "$TMP/small") ;;
        esac
        args=()
        for algo in md5 sha256 sha512 blake3; do
            args+=(-n "fastsum -a $algo" "cd $TMP/small && $BIN -a $algo $target")
        done
        for p in "${peers[@]}"; do
            IFS='|' read -r _ name cmd <<<"$p"
            args+=(-n "$name" "cd $TMP/small && $cmd $target")
        done
        bench "t3-$set" "${RUNS[@]}" --prepare "$prep" "${args[@]}"
    done
    printf '%s\n' "${peers[@]}" >"$TMP/peers.txt"
fi

python3 "$ROOT/benches/e2e_report.py" "$TMP" "$BIN" "$SWEEP" "$MID_MIB" "$BIG_MIB" \
    "$SMALL_FILES" "$NOOP_MIB" "$ARGS" | tee ${OUT:+"$OUT"}
