#!/usr/bin/env python3
"""Turn the hyperfine JSON files of benches/e2e.sh (and the criterion
estimates of its no-op series) into the markdown tables of
docs/BENCHMARKS.md. Kept apart from e2e.sh so the shell script only runs
things and this file only formats them.

Usage (e2e.sh calls it): e2e_report.py TMPDIR BIN SWEEP MID_MIB BIG_MIB
SMALL_FILES NOOP_MIB ARGS
"""

import datetime
import json
import os
import platform
import subprocess
import sys

# seed 002's speed factors (sync time / threaded time): B1 MD5 local NVMe,
# B3 no-op local NVMe
SEED_B1 = {16: 24.9, 64: 20.4, 256: 14.5, 1024: 7.3, 4096: 3.1, 65536: 1.3}
SEED_B3 = {16: 33.4, 64: 28.2, 256: 29.3, 1024: 19.2, 4096: 6.1, 65536: 1.0}
CHUNKS = [("16", 16), ("64", 64), ("256", 256), ("1K", 1024), ("4K", 4096), ("64K", 65536)]


def load(tmp, name):
    """{command name: (mean s, stddev s)} of one hyperfine run, or {}."""
    path = os.path.join(tmp, "json", name + ".json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        results = json.load(f)["results"]
    return {r["command"]: (r["mean"], r.get("stddev") or 0.0, r["min"]) for r in results}


def fmt(t):
    """A (mean, stddev) pair as hyperfine words it: ms under a second."""
    if t is None:
        return "–"
    mean, sd = t[0], t[1]
    if mean < 1:
        return f"{mean * 1e3:.1f} ms ± {sd * 1e3:.1f}"
    return f"{mean:.3f} s ± {sd:.3f}"


def ratio(a, b):
    return f"{a[0] / b[0]:.2f}" if a and b else "–"


def criterion_mean(chunk, mode):
    path = os.path.join("target", "criterion", "noop", mode, str(chunk), "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["mean"]["point_estimate"]
    except (OSError, KeyError, ValueError):
        return None


def machine(binary, args):
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Measured {now} on {model}, {os.cpu_count()} cores, Linux {platform.release()}; "
        f"{version}; `benches/e2e.sh {args}`.".replace(" `benches/e2e.sh `", " `benches/e2e.sh`")
    )


def table1(tmp, mid_mib):
    warm, cold = load(tmp, "t1-warm"), load(tmp, "t1-cold")
    cols = ["bytewise", "sync 8K", "threaded 8K", "sync", "threaded"]
    heads = ["bytewise", "sync --chunk 8K", "threaded --chunk 8K", "sync (defaults)", "threaded (defaults)"]
    out = [
        f"**Table 1** (seed 000): MD5 of a {mid_mib} MiB random file, hyperfine mean ± σ.",
        "",
        "| | " + " | ".join(heads) + " |",
        "|---|" + "---:|" * len(heads),
    ]
    for label, data in [("Warm cache", warm), ("Cold cache (`vmtouch -e`)", cold)]:
        out.append(f"| {label} | " + " | ".join(fmt(data.get(c)) for c in cols) + " |")
    return out


def table2(tmp, big_mib, noop_mib):
    out = [
        f"**Table 2** (seed 002): speed factor = sync time / threaded time at each `--chunk`; "
        f"MD5 on a {big_mib} MiB file (warm cache, hyperfine), no-op consumer in-process on a "
        f"{noop_mib} MiB file (`cargo bench --bench pipeline -- noop`). Seed B1/B3: the seed's "
        "factors on a 6.6 GB/s NVMe.",
        "",
        "| --chunk | MD5 sync | MD5 threaded | **MD5 factor** | seed B1 | no-op sync | no-op threaded "
        "| **no-op factor** | seed B3 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, n in CHUNKS:
        t = load(tmp, f"t2-{name}")
        s, th = t.get("sync"), t.get("threaded")
        ns, nt = criterion_mean(n, "sync"), criterion_mean(n, "threaded")
        nf = f"{ns / nt:.1f}" if ns and nt else "–"
        nss = f"{ns / 1e6:.1f} ms" if ns else "–"
        nts = f"{nt / 1e6:.1f} ms" if nt else "–"
        factor = f"{s[0] / th[0]:.1f}" if s and th else "–"
        out.append(
            f"| {name} | {fmt(s)} | {fmt(th)} | **{factor}** | {SEED_B1[n]} | {nss} | {nts} "
            f"| **{nf}** | {SEED_B3[n]} |"
        )
    return out


def table3(tmp, big_mib, small_files):
    sets = [("big-warm", f"{big_mib} MiB warm"), ("big-cold", f"{big_mib} MiB cold"),
            ("small-warm", f"{small_files} small files, warm")]
    data = {k: load(tmp, "t3-" + k) for k, _ in sets}
    peers = []
    peers_file = os.path.join(tmp, "peers.txt")
    if os.path.exists(peers_file):
        with open(peers_file) as f:
            peers = [line.rstrip("\n").split("|")[:2] for line in f if line.strip()]
    out = [
        "**Table 3**: fastsum against its peers, same algorithm, one hyperfine run per column. "
        "Peer cells: time, then (ratio) = peer time / fastsum time: above 1, fastsum is faster.",
        "",
        "| tool | " + " | ".join(h for _, h in sets) + " |",
        "|---|" + "---:|" * len(sets),
    ]
    for algo in ["md5", "sha256", "sha512", "blake3"]:
        ours = f"fastsum -a {algo}"
        out.append(f"| **{ours}** | " + " | ".join(fmt(data[k].get(ours)) for k, _ in sets) + " |")
        for palgo, name in peers:
            if palgo != algo:
                continue
            cells = []
            for k, _ in sets:
                p, f = data[k].get(name), data[k].get(ours)
                cells.append(f"{fmt(p)} ({ratio(p, f)})" if p else "–")
            out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def sweep(tmp, big_mib, small_files):
    out = [
        f"**Defaults sweep**: MD5 of a {big_mib} MiB file, threaded; `--chunk` with the other "
        "two at their defaults, then `--readahead` × `--pool`. Mean ± σ; min = fastest run, "
        "(×) = min / the best min of its block. Sorted by warm min.",
        "",
        "| --chunk | --readahead | --pool | warm | cold |",
        "|---:|---:|---:|---:|---:|",
    ]
    for part in ["chunk", "ra"]:
        warm, cold = load(tmp, f"sweep-{part}-warm"), load(tmp, f"sweep-{part}-cold")
        # ranked by the fastest run: on a shared machine the mean mostly
        # measures the neighbours, the minimum the configuration
        best_w = min((v[2] for v in warm.values()), default=None)
        best_c = min((v[2] for v in cold.values()), default=None)
        for name in sorted(warm, key=lambda n: warm[n][2]):
            chunk, ra, pool = name.split()
            w, c = warm.get(name), cold.get(name)
            wr = f"; min {w[2]:.3f} s ({w[2] / best_w:.2f}×)" if w and best_w else ""
            cr = f"; min {c[2]:.3f} s ({c[2] / best_c:.2f}×)" if c and best_c else ""
            out.append(f"| {chunk} | {ra} | {pool} | {fmt(w)}{wr} | {fmt(c)}{cr} |")
    jw, jc = load(tmp, "jobs-warm"), load(tmp, "jobs-cold")
    out += [
        "",
        f"**-j sweep**: MD5 of {small_files} files of 1 B … 16 KiB, threaded, defaults otherwise.",
        "",
        "| -j | warm | cold |",
        "|---:|---:|---:|",
    ]
    for j in sorted(jw, key=int):
        w, c = jw.get(j), jc.get(j)
        wm = f"; min {w[2] * 1e3:.0f} ms" if w else ""
        cm = f"; min {c[2] * 1e3:.0f} ms" if c else ""
        out.append(f"| {j} | {fmt(w)}{wm} | {fmt(c)}{cm} |")
    return out


def main():
    tmp, binary, is_sweep, mid, big, small, noop, args = sys.argv[1:9]
    lines = [machine(binary, args), ""]
    if is_sweep == "1":
        lines += sweep(tmp, big, small)
    else:
        lines += table1(tmp, mid) + [""] + table2(tmp, big, noop) + [""] + table3(tmp, big, small)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
