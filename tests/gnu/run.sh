#!/bin/bash
# Run GNU coreutils' own md5sum/sha*sum/b2sum tests against fastsum (linked under
# the GNU names) and against the installed GNU tools, and print a table.
#
#   tests/gnu/run.sh COREUTILS [FASTSUM]
#
# COREUTILS: a coreutils source tree (holding tests/misc/md5sum.pl), or a
# git directory (bare or not) of coreutils, from which the tag in $GNU_REV
# (default v9.1) is read. Nothing of coreutils is kept in this repository:
# the tests are extracted into a temporary directory at run time.
# FASTSUM: the binary to test (default target/debug/fastsum; build it first).
# FASTSUM_ARGS: options put before the test's own (e.g. "-m sync"), through
# a wrapper that keeps the GNU name as argv[0].
# Set KEEP=1 to keep the temporary trees (their logs explain failures);
# VERBOSE=1 prints each failing test's log.
#
# Exit status: 0 if fastsum passes every test the GNU tools pass, else 1.

set -u

coreutils=${1:?usage: tests/gnu/run.sh COREUTILS [FASTSUM]}
root=$(cd "$(dirname "$0")/../.." && pwd)
fastsum=${2:-$root/target/debug/fastsum}
rev=${GNU_REV:-v9.1}
case $fastsum in /*) ;; *) fastsum=$PWD/$fastsum ;; esac
[ -x "$fastsum" ] || { echo "no fastsum binary at $fastsum (cargo build)" >&2; exit 2; }

tools="md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum"
# GNU programs the tests also run that fastsum does not stand for (the
# cksum tests shuffle and print their input): the installed ones, in both
# trees
helpers="shuf printf"
# under tests/misc/ up to 9.4, tests/cksum/ since
names="md5sum.pl md5sum-bsd.sh md5sum-newline.pl md5sum-parallel.sh sha1sum.pl
sha1sum-vec.pl sha224sum.pl sha256sum.pl sha384sum.pl sha512sum.pl b2sum.sh
cksum.sh cksum-a.sh cksum-c.sh sm3sum.pl sum.pl sum-sysv.sh"
support="init.cfg tests/init.sh tests/lang-default tests/envvar-check
tests/Coreutils.pm tests/CuSkip.pm tests/CuTmpdir.pm"

# print file F of the coreutils tree or git directory; fail if absent
show() {
  if [ -d "$coreutils/tests" ]; then
    cat "$coreutils/$1" 2>/dev/null
  else
    git --git-dir="$coreutils" show "$rev:$1" 2>/dev/null ||
      git -C "$coreutils" show "$rev:$1" 2>/dev/null
  fi
}

# extract FILES into DIR
extract() {
  local dir=$1 f
  shift
  for f in "$@"; do
    mkdir -p "$dir/$(dirname "$f")"
    # since 9.2 tests/init.sh comes from gnulib at bootstrap: take 9.1's
    show "$f" > "$dir/$f" || { [ "$f" = tests/init.sh ] && rev=v9.1 show "$f" > "$dir/$f"; } ||
      { echo "cannot find $f in $coreutils (rev $rev)" >&2; return 1; }
  done
}

# where each test lives in this version
tests=
for n in $names; do
  for d in tests/misc tests/cksum; do
    if show "$d/$n" > /dev/null; then tests="$tests $d/$n"; continue 2; fi
  done
  echo "cannot find $n in $coreutils (rev $rev)" >&2
  exit 2
done

# make a tree for one implementation: src/<tool> -> the program under test
setup() {
  local dir=$1 impl=$2 t target
  extract "$dir" $support $tests || return 1
  mkdir -p "$dir/src"
  for t in $helpers; do
    target=$(type -P "$t") || { echo "GNU $t not installed" >&2; return 1; }
    ln -s "$target" "$dir/src/$t"
  done
  for t in $tools; do
    if [ "$impl" = fastsum ]; then
      target=$fastsum
    else
      target=$(command -v "$t") || { echo "GNU $t not installed" >&2; return 1; }
    fi
    if [ "$impl" = fastsum ] && [ -n "${FASTSUM_ARGS:-}" ]; then
      # a wrapper that keeps the name and puts fastsum's options first
      printf '#!/bin/bash\nexec -a %s %q %s "$@"\n' "$t" "$target" "$FASTSUM_ARGS" > "$dir/src/$t"
      chmod +x "$dir/src/$t"
    else
      ln -s "$target" "$dir/src/$t"
    fi
  done
}

# run one test in DIR, as coreutils' `make check` does; print its result
run_one() {
  local dir=$1 test=$2 log rc
  log=$dir/$(echo "$test" | tr / -).log
  (
    cd "$dir" || exit 99
    . tests/lang-default
    export srcdir=. top_srcdir=. abs_top_builddir="$dir" abs_top_srcdir="$dir" \
      abs_srcdir="$dir/tests" built_programs="$tools $helpers" fail=0 VERBOSE=yes \
      PERL=perl SHELL=/bin/sh EXEEXT= PATH="$dir/src:$PATH" \
      CU_TEST_NAME="tests,$(echo "$test" | sed 's,/,-,g')"
    case $test in
      *.pl) exec perl -w -Itests -MCuSkip -MCoreutils -M"CuTmpdir qw($test)" "$test" ;;
      *.sh) exec /bin/sh "$test" ;;
    esac
  ) > "$log" 2>&1
  rc=$?
  case $rc in
    0) echo PASS ;;
    77) echo SKIP ;;
    *) echo "FAIL($rc)" ;;
  esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/fastsum-gnu.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
setup "$work/fastsum" fastsum || exit 2
setup "$work/gnu" gnu || exit 2

status=0
printf '%-32s %-10s %-10s\n' "GNU test ($rev)" fastsum "GNU $(md5sum --version | sed -n "s/.* //p;q")"
for test in $tests; do
  ours=$(run_one "$work/fastsum" "$test")
  theirs=$(run_one "$work/gnu" "$test")
  printf '%-32s %-10s %-10s\n' "${test#tests/}" "$ours" "$theirs"
  if [ "$theirs" = PASS ] && [ "$ours" != PASS ]; then
    status=1
    if [ "${VERBOSE:-0}" = 1 ]; then
      sed 's/^/    /' "$work/fastsum/$(echo "$test" | tr / -).log"
    fi
  fi
done
[ "${KEEP:-0}" = 1 ] && echo "trees kept in $work"
exit $status
