#!/usr/bin/env bash
# The folders of src/ are layers: tools/check-layers finds no include from a folder to one
# above it and no circle of folders in this tree; and, so that its silence means something,
# it does find them in a small tree made to have them (an include up, a circle, a name two
# folders hold, an include between the programs).
#
#   test-layers.sh SOURCE_ROOT      (TAP; needs python3)
set -u
root=$1
check=$root/tools/check-layers
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is not installed"; exit 0; }
n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }

if out=$(python3 "$check" "$root" 2>&1); then
  ok "src/ has no include up and no circle of folders: $(tail -n 1 <<<"$out")"
else
  not_ok "tools/check-layers finds includes up or circles in src/"
  sed 's/^/#   /' <<<"$out"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/core/base" "$tmp/src/core/expr" "$tmp/src/core/io" "$tmp/src/app" "$tmp/src/cli"
printf '#pragma once\n' >"$tmp/src/core/io/cml-out.h"
printf '#pragma once\n#include "cml-low.h"\n' >"$tmp/src/core/expr/cml-expr.h"
printf '#pragma once\n\n#include "cml-out.h"\n' >"$tmp/src/core/base/cml-low.h"
printf '#include "cml-expr.h"\n' >"$tmp/src/core/io/cml-out.c"
printf '#include "cml-window.h"\n' >"$tmp/src/cli/cml-cli.c"
printf '#pragma once\n' >"$tmp/src/app/cml-window.h"
printf '#include "cml-dup.h"\n' >"$tmp/src/core/expr/cml-expr.c"
printf '#pragma once\n' >"$tmp/src/core/base/cml-dup.h"
printf '#pragma once\n' >"$tmp/src/core/io/cml-dup.h"
out=$(python3 "$check" "$tmp" 2>&1)
status=$?
if [ $status -eq 1 ]; then ok "a tree with an include up fails"; else not_ok "a tree with an include up exits $status, not 1"; fi
if grep -q '^src/core/base/cml-low.h:3: includes src/core/io/cml-out.h (up' <<<"$out"; then
  ok "the include up is named with its file and line"
else
  not_ok "the include up is not named"
fi
if grep -q '^circle of folders: src/core/base <-> src/core/expr <-> src/core/io' <<<"$out"; then
  ok "the circle of three folders is named"
else
  not_ok "the circle of three folders is not named"
fi
if grep -q '^src/core/expr/cml-expr.c:1: "cml-dup.h" is ambiguous' <<<"$out"; then
  ok "a header name two folders hold is named"
else
  not_ok "a header name two folders hold is not named"
fi
if grep -q '^src/cli/cml-cli.c:1: includes src/app/cml-window.h (sideways' <<<"$out"; then
  ok "an include between the two programs' folders is named"
else
  not_ok "an include between the two programs' folders is not named"
fi
[ $failed -eq 0 ] || sed 's/^/#   /' <<<"$out"
echo "1..$n"
exit $failed
