#!/bin/bash
# Run GNU coreutils' own md5sum/sha*sum tests against fastsum (linked under
# the GNU names) and against the installed GNU tools, and print a table.
#
#   tests/gnu/run.sh COREUTILS [FASTSUM]
#
# COREUTILS: a coreutils source tree (holding tests/misc/md5sum.pl), or a
# git directory (bare or not) of coreutils, from which the tag in $GNU_REV
# (default v9.1) is read. Nothing of coreutils is kept in this repository:
# the tests are extracted into a temporary directory at run time.
# FASTSUM: the binary to test (default target/debug/fastsum; build it first).
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

tools="md5sum sha1sum sha224sum sha256sum sha384sum sha512sum"
tests="tests/misc/md5sum.pl tests/misc/md5sum-bsd.sh tests/misc/md5sum-newline.pl
tests/misc/md5sum-parallel.sh tests/misc/sha1sum.pl tests/misc/sha1sum-vec.pl
tests/misc/sha224sum.pl tests/misc/sha256sum.pl tests/misc/sha384sum.pl
tests/misc/sha512sum.pl"
support="init.cfg tests/init.sh tests/lang-default tests/envvar-check
tests/Coreutils.pm tests/CuSkip.pm tests/CuTmpdir.pm"

# extract FILES from the coreutils tree or git directory into DIR
extract() {
  local dir=$1 f
  shift
  for f in "$@"; do
    mkdir -p "$dir/$(dirname "$f")"
    if [ -f "$coreutils/$f" ]; then
      cp "$coreutils/$f" "$dir/$f"
    elif ! git --git-dir="$coreutils" show "$rev:$f" > "$dir/$f" 2>/dev/null &&
         ! git -C "$coreutils" show "$rev:$f" > "$dir/$f" 2>/dev/null; then
      echo "cannot find $f in $coreutils (rev $rev)" >&2
      return 1
    fi
  done
}

# make a tree for one implementation: src/<tool> -> the program under test
setup() {
  local dir=$1 impl=$2 t target
  extract "$dir" $support $tests || return 1
  mkdir -p "$dir/src"
  for t in $tools; do
    if [ "$impl" = fastsum ]; then
      target=$fastsum
    else
      target=$(command -v "$t") || { echo "GNU $t not installed" >&2; return 1; }
    fi
    ln -s "$target" "$dir/src/$t"
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
      abs_srcdir="$dir/tests" built_programs="$tools" fail=0 VERBOSE=yes \
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
printf '%-32s %-10s %-10s\n' "GNU test ($rev)" fastsum "GNU"
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
