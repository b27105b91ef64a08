#!/usr/bin/env bash
# Every symbol cmlab's libraries define for other files carries cmlab's prefix: cml_
# (functions; internals with a concept after it, cml_model_, cml_sys_, cml_sim_, cml_expr_,
# cml_scene_, cml_plot_ …), Cml (types' functions GObject generates) or CML_.  A name such
# as `fail` or `sym` in a library is a clash waiting for the next library linked beside it.
#
#   test-symbols.sh LIBRARY.a...      (TAP; needs nm, from binutils)
set -u
command -v nm >/dev/null || { echo "1..0 # SKIP nm (binutils) is not installed"; exit 0; }
n=0
failed=0
for lib in "$@"; do
  n=$((n + 1))
  if ! out=$(nm -g --defined-only "$lib" 2>&1); then
    echo "not ok $n - $(basename "$lib"): nm cannot read it: $out"
    failed=1
    continue
  fi
  # defined external symbols (upper-case types), less the prefixed and the compiler's own
  bad=$(printf '%s\n' "$out" | awk 'NF == 3 && $2 ~ /^[TDBRCVGS]$/ { print $3 }' \
        | grep -Ev '^(cml_|_cml|Cml|CML_|__)' | sort -u)
  if [ -z "$bad" ]; then
    echo "ok $n - $(basename "$lib"): every external symbol has cmlab's prefix"
  else
    echo "not ok $n - $(basename "$lib"): $(printf '%s\n' "$bad" | wc -l) external symbols without cmlab's prefix"
    printf '%s\n' "$bad" | sed 's/^/#   /'
    failed=1
  fi
done
echo "1..$n"
exit $failed
