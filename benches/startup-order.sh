#!/usr/bin/env bash
# Regenerate link/startup.ld: the functions one call on one small file runs,
# which build.rs has the linker place side by side (see the head of
# link/startup.ld for why). Run it when the start-up path changes shape
# (a renamed function, a new step before the first read) or after a Rust
# upgrade; `git diff link/startup.ld` then shows what moved.
#
#   benches/startup-order.sh
#
# Links an unstripped release binary without the script (the next
# `cargo build --release` links the usual one again), runs it under
# callgrind for the calls scripts make most (fastsum, md5sum, sha256sum and
# sha1sum on one small file, md5sum -c of one line), and writes one input
# section pattern per function of the binary that ran, in address order,
# with the hashes of the mangled names left out (`17h*E`, `Cs*_`) so that the
# patterns still match after a rebuild with other crate metadata or another
# rustc; an instance of a generic function by its full name (it moves to its
# ordinary place after another rustc); LLVM's `.text.unlikely.` sections
# (`#[cold]` functions: std's one-time initialisations, a vector's growth)
# as well. Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# (linked without the script: valgrind reads no symbols from its section)
FASTSUM_STARTUP_ORDER=off cargo rustc --release --quiet --bin fastsum -- -C strip=none
cp target/release/fastsum "$work/fastsum"
bin=$work/fastsum
head -c 3000 /dev/urandom > "$work/one"
for name in md5sum sha256sum sha1sum; do ln -s "$bin" "$work/$name"; done
(cd "$work" && "$bin" -a md5 one > one.md5)

i=0
for call in "$bin one" "./md5sum one" "./sha256sum one" "./sha1sum one" "./md5sum -c one.md5"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  (cd "$work" && valgrind -q --tool=callgrind --demangle=no \
    --callgrind-out-file="$work/cg.$i" $call > /dev/null)
done

nm -S --defined-only "$bin" > "$work/nm"
python3 - "$work" "$bin" > "$work/startup.ld" <<'EOF'
import glob, os, re, sys
work, binary = sys.argv[1], sys.argv[2]
ran = set()
for path in glob.glob(work + "/cg.*"):
    names, objects, current = {}, {}, None
    for line in open(path):
        m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3) is not None:
                objects[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                current = objects.get(m.group(2))
            continue
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "fn" and current and os.path.realpath(os.path.join(work, current)) == os.path.realpath(binary):
                ran.add(names[m.group(2)])
functions = {}
for line in open(work + "/nm"):
    f = line.split()
    if len(f) == 4 and f[2] in "tT":
        functions[f[3]] = (int(f[0], 16), int(f[1], 16))
def pattern(name):
    return re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", re.sub(r"17h[0-9a-f]{16}E$", "17h*E", name))
instances = {}
for name in functions:
    instances[pattern(name)] = instances.get(pattern(name), 0) + 1
patterns = []
for name in sorted((n for n in ran if n in functions), key=lambda n: functions[n][0]):
    # one instance of a generic function by its full name: its pattern would
    # bring every instance
    p = pattern(name) if instances[pattern(name)] == 1 else name
    if p not in patterns:
        patterns.append(p)
head = open("link/startup.ld").read().split("SECTIONS")[0]
print(head + "SECTIONS\n{\n  .text.fastsum_start :\n  {")
for p in patterns:
    print("    *(.text.%s .text.unlikely.%s)" % (p, p))
print("  }\n}\nINSERT BEFORE .text;")
EOF
mv "$work/startup.ld" link/startup.ld
echo "link/startup.ld: $(grep -c '^    \*' link/startup.ld) patterns" >&2
