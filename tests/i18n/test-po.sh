#!/bin/bash
# test-po.sh — the translations are whole: every file with strings to translate (a `_(`,
# `N_(`, `C_(` or `ngettext (` in C, `translatable=` in an interface file) is listed in
# po/POTFILES.in, and each language in po/LINGUAS is valid (msgfmt --check), has nothing
# untranslated or fuzzy, and translates every string the sources hold now (a template made
# afresh with xgettext, as the cmlab-pot target makes it, against the language's file).
# TAP output; skipped (with the reason) where gettext's tools are missing (the headless
# build's packages have none, and meson then builds no translations).
# Usage: test-po.sh SOURCE_ROOT
set -u
src=$1
missing=
for tool in xgettext msgfmt msgcmp msgattrib; do
  command -v "$tool" >/dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
  echo "1..0 # SKIP gettext's tools are missing:$missing (Debian: gettext)"
  exit 0
fi
po=$src/po
n=0
fail=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }

listed=$(grep -v '^#' "$po/POTFILES.in" | sed '/^$/d')

# every file with strings to translate is listed, and every listed file exists
cd "$src" || exit 1
for f in $(grep -rlE '(^|[^A-Za-z0-9_])(N?C?_|ngettext) ?\(|translatable="yes"' src/app src/cli src/core src/render ui data | sort); do
  if grep -qxF "$f" <<<"$listed"; then ok "$f is in POTFILES.in"; else not_ok "$f has strings to translate but is not in POTFILES.in"; fi
done
for f in $listed; do
  if [ -f "$f" ]; then ok "$f exists"; else not_ok "POTFILES.in lists $f, which does not exist"; fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the keywords and flags of meson's i18n.gettext (preset: 'glib')
if xgettext --package-name=cmlab --from-code=UTF-8 --add-comments --directory="$src" \
     --files-from="$po/POTFILES.in" --output="$tmp/cmlab.pot" \
     --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 --keyword=g_dcgettext:2 \
     --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
     --flag=N_:1:pass-c-format --flag=C_:2:pass-c-format --flag=NC_:2:pass-c-format \
     --flag=g_dngettext:2:pass-c-format --flag=g_strdup_printf:1:c-format \
     --flag=g_string_printf:2:c-format --flag=g_string_append_printf:2:c-format \
     --flag=g_error_new:3:c-format --flag=g_set_error:4:c-format \
     --flag=g_markup_printf_escaped:1:c-format --flag=g_log:3:c-format --flag=g_print:1:c-format \
     --flag=g_printerr:1:c-format --flag=g_printf:1:c-format --flag=g_fprintf:2:c-format \
     --flag=g_sprintf:2:c-format --flag=g_snprintf:3:c-format 2>"$tmp/xgettext.err"; then
  ok "xgettext makes the template"
else
  not_ok "xgettext fails: $(cat "$tmp/xgettext.err")"
fi

for lang in $(grep -v '^#' "$po/LINGUAS"); do
  stats=$(msgfmt --check --statistics -o /dev/null "$po/$lang.po" 2>&1)
  if [ $? -eq 0 ]; then ok "msgfmt --check $lang.po: $stats"; else not_ok "msgfmt --check $lang.po: $stats"; fi
  if grep -qE 'untranslated|fuzzy' <<<"$stats"; then not_ok "$lang.po is not whole: $stats"; else ok "$lang.po has nothing untranslated or fuzzy"; fi
  if out=$(msgcmp "$po/$lang.po" "$tmp/cmlab.pot" 2>&1); then
    ok "$lang.po translates every string of the sources"
  else
    not_ok "$lang.po misses strings of the sources (ninja cmlab-update-po, then translate): $(head -c 2000 <<<"$out")"
  fi
done

# Reverse (time runs backwards) has one Spanish name wherever it is named, and not
# «Invertir», which reads as "invert"
if msgattrib --no-wrap --no-obsolete "$po/es.po" >"$tmp/es-nowrap.po" 2>/dev/null; then
  reverse=$(grep -A1 -x 'msgid "Reverse"' "$tmp/es-nowrap.po" | sed -n 's/^msgstr "\(.*\)"$/\1/p')
  if [ -n "$reverse" ] && [ "$reverse" != "Invertir" ]; then
    ok "es.po: Reverse is «$reverse»"
  else
    not_ok "es.po: Reverse is «$reverse» (it reads as “invert”: say that time runs backwards)"
  fi
  # every other message that names the check box (by its capital R) uses the same word
  others=$(grep -A1 -E '^msgid ".*(^|[^A-Za-z])Reverse([^A-Za-z]|$)' "$tmp/es-nowrap.po" | grep '^msgstr' | grep -vF "$reverse")
  if [ -z "$others" ]; then ok "es.po: every message naming Reverse says «$reverse»"; else not_ok "es.po: messages naming Reverse with another word: $others"; fi
fi

echo "1..$n"
exit $fail
