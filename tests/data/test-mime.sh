#!/bin/bash
# test-mime.sh — the desktop knows cmlab's files: the shared MIME database made from
# data/org.cmlab.Cmlab.mime.xml (with update-mime-database, into a folder of the test's
# own) names every built-in model text/x-cmlab-model and a saved session
# application/x-cmlab-session and every shipped lesson application/x-cmlab-lesson (by its
# name, and by its content alone); a Chemical Markup
# Language file named *.cml stays chemical/x-cml where chemical-mime-data claims that glob
# too; the desktop file offers the window for the three types.
# Arguments: the MIME package, the models' folder, the built desktop file, the lessons' folder.
set -u
package=$(realpath "$1")
models=$(realpath "$2")
desktop=$(realpath "$3")
lessons=$(realpath "$4")
for tool in update-mime-database gio; do
  if ! command -v $tool >/dev/null; then
    echo "1..0 # SKIP $tool is not installed (Debian: shared-mime-info, libglib2.0-bin)"
    exit 0
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share/mime/packages" "$tmp/files"
cp "$package" "$tmp/share/mime/packages/"
# the base types (text/plain, application/xml) and Debian's claim on *.cml
[ -r /usr/share/mime/packages/freedesktop.org.xml ] && cp /usr/share/mime/packages/freedesktop.org.xml "$tmp/share/mime/packages/"
cat >"$tmp/share/mime/packages/chemical.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="chemical/x-cml">
    <sub-class-of type="application/xml"/>
    <comment>Chemical Markup Language</comment>
    <glob pattern="*.cml"/>
  </mime-type>
</mime-info>
XML

n=0
fail=0
result () { # OK DESCRIPTION
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

# (the folder in the search path, so that the tool has nothing to note about it)
out=$(XDG_DATA_HOME=$tmp/share XDG_DATA_DIRS=$tmp/share update-mime-database "$tmp/share/mime" 2>&1)
rc=$?
[ $rc = 0 ] && ! grep -qi "error\|warning" <<<"$out"
result $? "update-mime-database reads the package without a complaint${out:+: $(tr '\n' ' ' <<<"$out")}"

type_of () { XDG_DATA_HOME=$tmp/share XDG_DATA_DIRS=$tmp/share gio info -a standard::content-type "$1" 2>/dev/null | sed -n 's/^ *standard::content-type: //p'; }
check_type () { # FILE EXPECTED WHAT
  local got
  got=$(type_of "$1")
  [ "$got" = "$2" ]
  result $? "$3 is $2 (got ${got:-nothing})"
}

for m in "$models"/*.cml; do
  check_type "$m" text/x-cmlab-model "the built-in model $(basename "$m")"
done
printf '[session]\nformat=cmlab-session 1\nmodel-name=martinet\n' >"$tmp/files/saved.cmlsession"
check_type "$tmp/files/saved.cmlsession" application/x-cmlab-session "a saved session"
cp "$tmp/files/saved.cmlsession" "$tmp/files/saved-without-extension"
check_type "$tmp/files/saved-without-extension" application/x-cmlab-session "a session saved without its extension"
for l in "$lessons"/*.cmllesson; do
  check_type "$l" application/x-cmlab-lesson "the shipped lesson $(basename "$l")"
done
cp "$(ls "$lessons"/*.cmllesson | head -n 1)" "$tmp/files/lesson-without-extension"
check_type "$tmp/files/lesson-without-extension" application/x-cmlab-lesson "a lesson saved without its extension"
printf '<?xml version="1.0"?>\n<cml xmlns="http://www.xml-cml.org/schema"><molecule id="m1"/></cml>\n' >"$tmp/files/benzene.cml"
check_type "$tmp/files/benzene.cml" chemical/x-cml "a Chemical Markup Language file named .cml"

mimes=$(sed -n 's/^MimeType=//p' "$desktop")
for t in application/x-cmlab-session application/x-cmlab-lesson text/x-cmlab-model; do
  [[ ";$mimes" == *";$t;"* ]]
  result $? "the desktop file offers the window for $t"
done
grep -q '^Exec=cmlab %F$' "$desktop"
result $? "the desktop file passes the files to open (Exec=cmlab %F)"
echo "1..$n"
exit $fail
