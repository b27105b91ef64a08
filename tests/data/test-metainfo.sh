#!/bin/bash
# test-metainfo.sh — what cmlab installs points at no made-up web address: no file of
# data/, doc/, help/ or models/ names a placeholder domain (example.org, example.com,
# example.net, or a name under .example, .invalid or .localhost, reserved for examples),
# and the metainfo built from data/org.cmlab.Cmlab.metainfo.xml.in is valid AppStream
# under `appstreamcli validate --pedantic --no-net` (skipped without appstreamcli or
# without the window's build, which makes the metainfo).
# TAP output.  Usage: test-metainfo.sh SOURCE_ROOT [BUILT_METAINFO]
set -u
src=$1
metainfo=${2:-}
n=0
fail=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
skip () { n=$((n + 1)); echo "ok $n # SKIP $1"; }

placeholder='(^|[^A-Za-z0-9-])(example\.(org|com|net|edu)|[A-Za-z0-9-]+\.(example|invalid|localhost))([^A-Za-z0-9_-]|$)'
for dir in data doc help models; do
  if hits=$(grep -rnIE "$placeholder" "$src/$dir"); then
    not_ok "$dir/ names a placeholder web address: $(head -c 1500 <<<"$hits")"
  else
    ok "$dir/ names no placeholder web address"
  fi
done

if [ -z "$metainfo" ]; then
  skip "no metainfo in this build (the window's build makes it)"
elif ! command -v appstreamcli >/dev/null; then
  skip "appstreamcli is not installed (Debian: appstream)"
else
  if out=$(appstreamcli validate --pedantic --no-net "$metainfo" 2>&1); then
    ok "appstreamcli validate --pedantic --no-net passes: $(tail -n 1 <<<"$out")"
  else
    not_ok "appstreamcli validate --pedantic --no-net fails: $out"
  fi
  # every address it gives is a real one: none at all while cmlab has no web home
  if grep -qE '<(url|image)[ >]' "$metainfo"; then
    not_ok "the metainfo gives web addresses: $(grep -E '<(url|image)[ >]' "$metainfo")"
  else
    ok "the metainfo gives no web address (cmlab has no web home)"
  fi
fi
echo "1..$n"
exit $fail
