#!/usr/bin/env bash
# The keys of the window (README.md, doc/window.md), pressed from outside on the real window while the rolling ball
# runs: F4 opens the list of systems and the window still answers Space and Ctrl+Q
# afterwards; every menu and drop-down of the header bar and the plots opens with a click
# and closes with Escape, each at the first click after the one before was closed;
# Ctrl+O's file dialog closes with Escape.
. "$(dirname "$0")/e2e-lib.sh"

e2e_screen 1280x720

e2e_start --model rolling-ball --play
e2e_ok $? "the window shows"
e2e_wait "s['state'] == 'running' and s['t'] > 0"
e2e_ok $? "the run plays"

e2e_key F4
e2e_wait "s['popovers'] == 1"
e2e_ok $? "F4 opens the list of systems"
e2e_picture keys-f4
e2e_key Escape
e2e_wait "s['popovers'] == 0"
e2e_ok $? "Escape closes the list"
e2e_key space
e2e_wait "s['state'] == 'paused'"
e2e_ok $? "after the list, Space pauses"
e2e_key space
e2e_wait "s['state'] == 'running'"
e2e_ok $? "and Space plays again"

# a click on the title opens the same list
read -r x y < <(e2e_control menu systems_button)
e2e_click_once "$x" "$y" "s['popovers'] == 1"
e2e_ok $? "a click on the title opens the list of systems"
e2e_picture keys-title-click
e2e_key Escape
e2e_wait "s['popovers'] == 0"
e2e_ok $? "Escape closes it"

# every menu and drop-down shown, one after the other
e2e_query "'\n'.join(c['kind'] + ' ' + str(c['name']) for c in s['controls'] if c['kind'] in ('menu', 'dropdown'))" >"$e2e_tmp/menus"
n_menus=$(wc -l <"$e2e_tmp/menus")
[ "$n_menus" -ge 6 ]
e2e_ok $? "the window shows its menus and drop-downs ($n_menus)"
declare -A seen
while read -r kind name; do
  k=${seen["$kind $name"]:-0}; seen["$kind $name"]=$((k + 1))
  read -r x y < <(e2e_control "$kind" "$name" "$k")
  if [ -z "${x:-}" ]; then e2e_ok 1 "$kind $name is there to click"; continue; fi
  # one click, right after the menu before was closed with Escape, the pointer coming
  # straight from it: GTK 4.8 gave that click to the closed popover (cml-popover-renew.c)
  e2e_click_once "$x" "$y" "s['popovers'] >= 1"
  e2e_ok $? "one click on $kind “$name” opens it"
  e2e_key Escape
  e2e_wait "s['popovers'] == 0"
  e2e_ok $? "Escape closes $kind “$name”"
done <"$e2e_tmp/menus"

e2e_key ctrl+o
e2e_wait "s['windows'] == 2"
e2e_ok $? "Ctrl+O opens the file dialog"
e2e_picture keys-open-dialog
e2e_key Escape
e2e_wait "s['windows'] == 1"
e2e_ok $? "Escape closes the file dialog"

# F1 without the guide installed (the build tree) or without a viewer: a dialog says why
e2e_key F1
e2e_wait "s['windows'] == 2"
e2e_ok $? "F1 shows the guide or says why it cannot"
e2e_picture keys-help
e2e_key Escape
e2e_wait "s['windows'] == 1"
e2e_ok $? "Escape closes that"

e2e_key space
e2e_wait "s['state'] == 'paused'"
e2e_ok $? "after all that, Space still pauses"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
