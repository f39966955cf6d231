#!/usr/bin/env python3
"""The tree benches/shards.sh shards: FILES files (200,000 by default) in
directories of 500, sizes skewed as a real tree's are: almost all of them
0-16 KiB (log-uniform), one in 10,000 of 1-256 MiB, and one of 1 GiB
(only when FILES >= 100,000). Seeded: the same tree for the same SEED.

    benches/shards_tree.py DIR [SEED [FILES]]
"""
import os
import random
import sys

root = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 44
count = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000
rnd = random.Random(seed)
blob = rnd.randbytes(1 << 20)


def size_of(i):
    if i == 0 and count >= 100_000:
        return 1 << 30
    if rnd.random() < 1e-4:
        return int(2 ** rnd.uniform(20, 28))
    return int(2 ** rnd.uniform(0, 14)) - 1


def write(path, size):
    # distinct contents: the file's name first, then slices of the blob
    head = path.encode()[-64:]
    with open(path, "wb") as f:
        left = size
        f.write(head[:left])
        left -= min(left, len(head))
        start = rnd.randrange(len(blob))
        while left > 0:
            piece = blob[start : start + left]
            f.write(piece)
            left -= len(piece)
            start = 0


total = 0
for i in range(count):
    d = os.path.join(root, "d%03d" % (i // 500))
    if i % 500 == 0:
        os.makedirs(d, exist_ok=True)
    size = size_of(i)
    write(os.path.join(d, "f%06d-%x" % (i, rnd.getrandbits(20))), size)
    total += size
print("%d files, %d bytes" % (count, total), file=sys.stderr)
