#!/usr/bin/env python3
"""The tree benches/walk.sh walks: 20 x 20 x 16 directories (6,820 in all),
32 files of 0-4 KiB in each leaf and 5 in each inner directory (206,905
files), names in random order so readdir's order is not the sorted one.
Seeded: the same tree every time.

    benches/walk_tree.py DIR
"""
import os
import random
import sys

root = sys.argv[1]
rnd = random.Random(21)
blob = os.urandom(4096)
files = dirs = 0


def fill(d, n):
    global files
    names = ["f%05d-%x" % (i, rnd.getrandbits(24)) for i in range(n)]
    rnd.shuffle(names)
    for name in names:
        with open(os.path.join(d, name), "wb") as f:
            f.write(blob[: rnd.randint(0, 4096)])
    files += n


# (prefix, count) of each level's directories; 5 files in the inner ones
LEVELS = [("a", 20), ("b", 20), ("c", 16)]


def level(d, depth):
    global dirs
    if depth == len(LEVELS):
        fill(d, 32)
        return
    fill(d, 5)
    prefix, count = LEVELS[depth]
    for i in range(count):
        sub = os.path.join(d, "%s%02d" % (prefix, i))
        os.mkdir(sub)
        dirs += 1
        level(sub, depth + 1)


os.makedirs(root)
level(root, 0)
print(f"{root}: {files} files in {dirs + 1} directories", file=sys.stderr)
