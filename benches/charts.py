#!/usr/bin/env python3
"""Draw the README's charts as SVG from the measured data kept beside them
(docs/charts/*.csv), never by hand. No dependencies: plain SVG text.

    benches/charts.py            # every chart in docs/charts/
    benches/charts.py lanes      # one of: lanes, seed002, seed002_remote, seed000_cold, peers

Each CSV starts with a `# ...` line saying where its figures come from;
the charts carry that line as their caption.
"""

import csv
import math
import sys
from pathlib import Path

DIR = Path(__file__).resolve().parent.parent / "docs" / "charts"
W, H = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 70, 170, 40, 70
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]


def read(name):
    """The caption (first line) and the rows of docs/charts/NAME.csv."""
    lines = (DIR / f"{name}.csv").read_text().splitlines()
    caption = lines[0].lstrip("# ").strip()
    return caption, list(csv.DictReader(lines[1:]))


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(title, caption, body, h=H):
    words, lines = caption.split(), [""]
    for w in words:
        if len(lines[-1]) + len(w) > 105:
            lines.append("")
        lines[-1] += (" " if lines[-1] else "") + w
    caption_svg = "".join(
        f'<text x="8" y="{h - 24 + 13 * i}" font-size="10" fill="#555">{esc(l)}</text>\n'
        for i, l in enumerate(lines[-2:])
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" '
        f'viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">\n'
        f'<rect width="{W}" height="{h}" fill="white"/>\n'
        f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">{esc(title)}</text>\n'
        f'{body}'
        f"{caption_svg}"
        "</svg>\n"
    )


def nice_max(v):
    """A round upper bound for an axis."""
    if v <= 0:
        return 1
    p = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * p:
            return m * p
    return 10 * p


def line_chart(title, caption, xlabel, ylabel, xs, series, log_x=False, log_y=False, xfmt=str):
    """series: [(name, [y or None per x])], or (name, ys, True) for a
    reference drawn black and dashed; xfmt labels an x."""
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    fx = (lambda x: math.log2(x)) if log_x else (lambda x: x)
    x0, x1 = fx(min(xs)), fx(max(xs))
    ys = [y for _, s, *_ in series for y in s if y is not None]
    if log_y:
        y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        fy = lambda y: (math.log10(y) - y0) / (y1 - y0)
        yticks = [10**e for e in range(y0, y1 + 1)]
    else:
        top = nice_max(max(ys))
        fy = lambda y: y / top
        yticks = [top * i / 5 for i in range(6)]
    px = lambda x: LEFT + (fx(x) - x0) / ((x1 - x0) or 1) * pw
    py = lambda y: TOP + ph - fy(y) * ph
    out = [f'<line x1="{LEFT}" y1="{TOP + ph}" x2="{LEFT + pw}" y2="{TOP + ph}" stroke="black"/>',
           f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + ph}" stroke="black"/>']
    for t in yticks:
        y = py(t)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>')
    every = max(1, len(xs) // 12)
    for i, x in enumerate(xs):
        if i % every == 0 or i == len(xs) - 1:
            out.append(f'<text x="{px(x):.1f}" y="{TOP + ph + 16}" text-anchor="middle">{esc(xfmt(x))}</text>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{TOP + ph + 34}" text-anchor="middle">{esc(xlabel)}</text>')
    out.append(f'<text x="16" y="{TOP + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {TOP + ph / 2})">{esc(ylabel)}</text>')
    for i, (name, s, *ref) in enumerate(series):
        # a reference series (name, ys, True): black and dashed
        c = "black" if ref and ref[0] else COLOURS[i % len(COLOURS)]
        dash = ' stroke-dasharray="6 3"' if ref and ref[0] else ""
        pts = [(px(x), py(y)) for x, y in zip(xs, s) if y is not None]
        out.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>'
                   % (c, dash, " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)))
        for a, b in pts:
            out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{c}"/>')
        ly = TOP + 14 + 18 * i
        out.append(f'<line x1="{W - RIGHT + 12}" y1="{ly - 4}" x2="{W - RIGHT + 32}" y2="{ly - 4}" '
                   f'stroke="{c}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{W - RIGHT + 36}" y="{ly}">{esc(name)}</text>')
    return svg(title, caption, "\n".join(out) + "\n")


def bar_chart(title, caption, groups, xlabel):
    """groups: [(group name, [(bar name, value)])], horizontal bars."""
    n = sum(len(b) for _, b in groups) + len(groups)
    step = 20
    ph = n * step
    h = TOP + ph + BOTTOM
    pw = W - LEFT - 120 - 40
    left = LEFT + 120
    top = nice_max(max(v for _, b in groups for _, v in b))
    out, row = [], 0
    for t in [top * i / 4 for i in range(5)]:
        x = left + t / top * pw
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + ph + 16}" text-anchor="middle">{t:g}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{TOP + ph + 34}" text-anchor="middle">{esc(xlabel)}</text>')
    for g, bars in groups:
        out.append(f'<text x="8" y="{TOP + row * step + 14:.1f}" font-weight="bold">{esc(g)}</text>')
        row += 1
        for i, (name, v) in enumerate(bars):
            y = TOP + row * step
            c = "#9ecae1" if "baseline" in name else COLOURS[0] if name.startswith("fastsum") else "#999"
            out.append(f'<rect x="{left}" y="{y:.1f}" width="{v / top * pw:.1f}" '
                       f'height="{step * 0.8:.1f}" fill="{c}"/>')
            out.append(f'<text x="{left - 6}" y="{y + step * 0.6:.1f}" text-anchor="end">{esc(name)}</text>')
            out.append(f'<text x="{left + v / top * pw + 4:.1f}" y="{y + step * 0.6:.1f}">{v:.3g}</text>')
            row += 1
    return svg(title, caption, "\n".join(out) + "\n", h)


def lanes():
    caption, rows = read("lanes")
    paths = list(dict.fromkeys(r["path"] for r in rows))
    xs = sorted({int(r["lanes"]) for r in rows})
    series = []
    for p in paths:
        by = {int(r["lanes"]): float(r["MBps"]) for r in rows if r["path"] == p}
        if len(by) == 1:
            # a single-stream figure: a flat reference line
            series.append((f"{p} (one stream)", [next(iter(by.values()))] * len(xs)))
        else:
            series.append((p, [by.get(x) for x in xs]))
    return line_chart("MD5 throughput as busy lanes grow (one core)", caption,
                      "busy lanes", "MB/s", xs, series)


def seed002():
    caption, rows = read("seed002")
    xs = [r["chunk"] for r in rows]
    num = lambda s: float(s) if s else None
    series = [(name, [num(r[col]) for r in rows]) for name, col in [
        ("fastsum MD5", "fastsum_md5"), ("seed B1 (MD5)", "seed_b1"),
        ("fastsum no-op", "fastsum_noop"), ("seed B3 (no-op)", "seed_b3")]]
    # --chunk labels are sizes like 16, 1K: plot them evenly spaced
    idx = list(range(1, len(xs) + 1))
    svg_text = line_chart("Speed factor of read-ahead (sync / threaded) by --chunk", caption,
                          "--chunk (bytes)", "speed factor (log)", idx, series, log_y=True)
    for i, label in zip(idx, xs):
        svg_text = svg_text.replace(f'text-anchor="middle">{i}</text>',
                                    f'text-anchor="middle">{esc(label)}</text>', 1)
    return svg_text


def size_label(n):
    """16, 1K, 64K: a byte count as --chunk spells it."""
    return f"{n >> 10}K" if n >= 1024 and n % 1024 == 0 else str(n)


def seed002_remote():
    caption, rows = read("seed002_remote")
    xs = [int(r["chunk"]) for r in rows]
    # the 32 KiB window (1.0-1.07) is left to the table: as 128 KiB
    names = [("seed_b2", "seed 002, B2"), ("direct", "no page cache"), ("ra4", "window 4 KiB"),
             ("ra8", "window 8 KiB"), ("ra16", "window 16 KiB"),
             ("ra128", "128 KiB (default)"), ("ra0", "window 0")]
    num = lambda s: float(s) if s else None
    series = [(name, [num(r[col]) for r in rows], col.startswith("seed")) for col, name in names]
    return line_chart("Remote FS, 32 MB/s: speed factor (sync / threaded)", caption,
                      "--chunk (bytes, log)", "speed factor (log)", xs, series,
                      log_x=True, log_y=True, xfmt=size_label)


def seed000_cold():
    caption, rows = read("seed000_cold")
    groups = {}
    for r in rows:
        groups.setdefault(r["device"], []).append((f'{r["who"]} {r["mode"]}', float(r["seconds"])))
    return bar_chart("Seed 000, cold 64 MiB: bytewise, sync, threaded (shorter is better)",
                     caption, list(groups.items()), "seconds")


def peers():
    caption, rows = read("peers")
    groups = {}
    for r in rows:
        groups.setdefault(r["workload"], []).append((r["tool"], float(r["seconds"])))
    return bar_chart("fastsum and its peers (wall time, shorter is better)", caption,
                     list(groups.items()), "seconds")


CHARTS = {"lanes": lanes, "seed002": seed002, "seed002_remote": seed002_remote,
          "seed000_cold": seed000_cold, "peers": peers}

if __name__ == "__main__":
    for name in sys.argv[1:] or CHARTS:
        if not (DIR / f"{name}.csv").exists():
            print(f"skipped {name}: no docs/charts/{name}.csv", file=sys.stderr)
            continue
        (DIR / f"{name}.svg").write_text(CHARTS[name]())
        print(f"docs/charts/{name}.svg")
