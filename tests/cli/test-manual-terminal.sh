#!/bin/bash
# test-manual-terminal.sh — the manual pages read on an 80-column terminal as man shows
# them, in the POSIX locale (ASCII: every character outside it needs a stand-in,
# doc/man/ascii-fallbacks.py) and in C.UTF-8: troff has nothing to warn about — no
# character it cannot draw, no line or table it cannot fit.  Arguments: the built pages.
set -u
if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
  echo "1..0 # SKIP man or groff is not installed (Debian: man-db, groff-base)"
  exit 0
fi
n=0
fail=0
for page in "$@"; do
  for locale in C C.UTF-8; do
    n=$((n + 1))
    err=$(LC_ALL=$locale MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$page" 2>&1 >/dev/null)
    if [ -z "$err" ]; then
      echo "ok $n - $(basename "$page") under LC_ALL=$locale"
    else
      echo "not ok $n - $(basename "$page") under LC_ALL=$locale: $(head -3 <<<"$err" | tr '\n' ' ')"
      fail=1
    fi
  done
done
echo "1..$n"
exit $fail
