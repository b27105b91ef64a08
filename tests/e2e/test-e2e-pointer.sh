#!/usr/bin/env bash
# The pointer and the keys on what a lesson touches: the ball dragged by 2 px stays under
# the pointer; the timeline dragged back leaves the phase portrait drawn; Ctrl+Z after a
# value typed into a field gives the parameter back, in the field and in the run.
. "$(dirname "$0")/e2e-lib.sh"

e2e_screen 1280x720

# ---- drag the ball by 2 px (paused: it stays where it is put) ----
e2e_start --model rolling-ball
e2e_ok $? "the window shows"
e2e_wait "s['body'] is not None"
e2e_ok $? "the ball is in view"
read -r bx by < <(e2e_query "' '.join(str(round(s['body'][i] + s['surface_offset'][i])) for i in (0, 1))")
xdotool mousemove --window "$e2e_win" "$bx" "$by" mousedown 1
xdotool mousemove --window "$e2e_win" $((bx + 1)) "$by"
xdotool mousemove --window "$e2e_win" $((bx + 2)) "$by"
E2E_TO="$((bx + 2)) $by" e2e_wait "s['body'] is not None and abs(s['body'][0] + s['surface_offset'][0] - $((bx + 2))) <= 3 and abs(s['body'][1] + s['surface_offset'][1] - $by) <= 3"
e2e_ok $? "dragged by 2 px, the ball stays under the pointer"
xdotool mouseup 1
e2e_wait "s['body'] is not None and abs(s['body'][0] + s['surface_offset'][0] - $((bx + 2))) <= 3 and abs(s['body'][1] + s['surface_offset'][1] - $by) <= 3"
e2e_ok $? "and where it is let go"
# a long drag, in steps as a hand makes it: the ball follows the pointer all the way
read -r bx by < <(e2e_query "' '.join(str(round(s['body'][i] + s['surface_offset'][i])) for i in (0, 1))")
xdotool mousemove --window "$e2e_win" "$bx" "$by" mousedown 1
for i in $(seq 1 13); do xdotool mousemove --window "$e2e_win" $((bx + 10 * i)) $((by + 3 * i)); done
e2e_wait "s['body'] is not None and abs(s['body'][0] + s['surface_offset'][0] - $((bx + 130))) <= 3 and abs(s['body'][1] + s['surface_offset'][1] - $((by + 39))) <= 3"
e2e_ok $? "dragged by 130 px, the ball stays under the pointer (the view does not reframe under it)"
xdotool mouseup 1
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"

# ---- scrub back: the phase portrait still shows the run up to that moment ----
e2e_start --model rolling-ball --play
e2e_wait "s['state'] == 'running' and s['t'] > 4"
e2e_ok $? "the run plays past 4 s"
e2e_key space
e2e_wait "s['state'] == 'paused'"
t0=$(e2e_query "s['t']")
for _ in 1 2 3 4 5 6 7 8 9 10; do e2e_key Left; done
e2e_wait "s['t'] < $t0"
e2e_ok $? "← steps back along the record"
e2e_wait "s['phase_plot']['data'] and s['time_plot']['data']"
e2e_ok $? "after stepping back, the phase portrait and the time plot show the run"
read -r x y < <(e2e_control slider scale)
if [ -n "${x:-}" ]; then
  # the timeline's scale: press on its knob's side and drag to its left end
  xdotool mousemove --window "$e2e_win" "$x" "$y" mousedown 1
  xdotool mousemove --window "$e2e_win" $((x - 40)) "$y"
  xdotool mousemove --window "$e2e_win" $((x > 600 ? x - 600 : 1)) "$y"
  xdotool mouseup 1
fi
e2e_wait "s['phase_plot']['data'] and s['time_plot']['data']"
e2e_ok $? "after the timeline is dragged back, the plots show the run"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"

# ---- Ctrl+Z in a number field ----
e2e_start --model rolling-ball
read -r x y < <(e2e_control field m)
[ -n "${x:-}" ]
e2e_ok $? "the field of m is there"
xdotool mousemove --window "$e2e_win" "$x" "$y" click --repeat 3 1
e2e_key ctrl+a
xdotool type --delay 50 "2"
e2e_key Return
e2e_wait "s['params']['m'] == 2"
e2e_ok $? "m typed as 2 takes effect"
e2e_key ctrl+z
e2e_wait "s['params']['m'] == 1 and s['focus']['text'] in ('1', None)"
e2e_ok $? "Ctrl+Z in the field gives m = 1 back to the run and to the field"
e2e_query "[c['text'] for c in s['controls'] if c['kind'] == 'field' and c['name'] == 'm'][0]" >"$e2e_tmp/text"
[ "$(cat "$e2e_tmp/text")" = 1 ]
e2e_ok $? "the field shows 1 (it shows “$(cat "$e2e_tmp/text")”)"
# an emptied field: told what it wants, the value stays
read -r x y < <(e2e_control field m)
xdotool mousemove --window "$e2e_win" "$x" "$y" click --repeat 3 1
e2e_key ctrl+a BackSpace Return
e2e_wait "s['panel_message'] is not None and 'number' in s['panel_message'] and '“”' not in s['panel_message'] and s['params']['m'] == 1"
e2e_ok $? "an emptied field asks for a number and m stays 1"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
# ---- Play at t = 0 with Reverse ticked: the run goes forward, and the window says so ----
e2e_start --model rolling-ball
e2e_wait "s['state'] == 'paused' and s['t'] == 0"
e2e_key b
e2e_key space
# (a toast goes after 4 s, which a busy machine may spend before the window answers: the
# state keeps the newest toast's text)
e2e_wait "s['state'] == 'running' and s['t'] > 0 and s['toasts_shown'] > 0 and s['last_toast'] is not None"
e2e_ok $? "Play at t = 0 with Reverse ticked plays forward and says why"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
