#!/usr/bin/env bash
# The teacher's pen and the hall's pointer, from the keyboard and the mouse on the real
# window in presentation mode: P turns the pen on, a drag over the plot draws a stroke
# that starts where the button went down, C wipes it, Escape puts the pen away (a drag
# then draws nothing); L shows the ring, which follows the mouse over the 3-D view.  With
# a value's field focused, Ctrl+Shift+P turns the pen on and Escape puts it away.
. "$(dirname "$0")/e2e-lib.sh"

e2e_screen 1280x720
e2e_start --model rolling-ball --presentation --window-size 1280x720
e2e_ok $? "the window shows, in presentation mode"
e2e_wait "s['presentation'] and s['pen']['on'] is False and s['pen']['strokes'] == 0 and s['time_plot']['at'] is not None"
e2e_ok $? "no pen, no drawing"

# the plot's centre, in the X window's coordinates
read -r px py < <(e2e_query "' '.join(str(round(s['time_plot']['at'][i] + s['surface_offset'][i])) for i in (0, 1))")

# a drag before the pen is on draws nothing (the layer lets the plot have it)
xdotool mousemove --window "$e2e_win" "$px" "$py" mousedown 1 mousemove --window "$e2e_win" $((px + 60)) $((py + 20)) \
  mouseup 1
e2e_wait "s['pen']['strokes'] == 0"
e2e_ok $? "without the pen a drag draws nothing"

e2e_key p
e2e_wait "s['pen']['on'] is True"
e2e_ok $? "P turns the pen on"

# the drag: the button pressed at the plot’s centre, moved in three steps, released (the
# toolkit may fold moves that come together into one: a stroke has at least its two ends)
e2e_drag () {
  xdotool mousemove --window "$e2e_win" "$1" "$2" mousedown 1 \
    mousemove --window "$e2e_win" $(($1 + 30)) $(($2 + 10)) \
    mousemove --window "$e2e_win" $(($1 + 60)) $(($2 + 25)) \
    mousemove --window "$e2e_win" $(($1 + 90)) $(($2 + 40)) mouseup 1
}
e2e_drag "$px" "$py"
e2e_wait "s['pen']['strokes'] >= 1 and s['pen']['points'] >= 2"
e2e_ok $? "a drag draws a stroke"
E2E_PX=$px E2E_PY=$py e2e_wait "abs(s['pen']['first'][0] + s['surface_offset'][0] - int(os.environ['E2E_PX'])) <= 2 and abs(s['pen']['first'][1] + s['surface_offset'][1] - int(os.environ['E2E_PY'])) <= 2"
e2e_ok $? "the stroke starts where the button went down"
e2e_picture pen-stroke

e2e_key c
e2e_wait "s['pen']['strokes'] == 0 and s['pen']['on'] is True"
e2e_ok $? "C wipes the drawing; the pen stays on"

e2e_drag "$px" "$py"
e2e_wait "s['pen']['strokes'] >= 1"
e2e_ok $? "the pen draws again"
e2e_key Escape
e2e_wait "s['pen']['on'] is False and s['pen']['strokes'] >= 1"
e2e_ok $? "Escape puts the pen away; the drawing stays"
n=$(e2e_query "s['pen']['points']")
e2e_drag $((px - 100)) "$py"
# the window answered after the drag: what it shows now is after it
e2e_wait "s['pen']['points'] == $n and s['pen']['on'] is False"
e2e_ok $? "with the pen away a drag draws nothing"

# the pointer: L, then the mouse over the 3-D view
e2e_key l
e2e_wait "s['pen']['pointer'] is True"
e2e_ok $? "L turns the pointer on"
read -r sx sy < <(e2e_query "' '.join(str(round(s['scene_view'][i] + s['scene_view'][i + 2] / 2 + s['surface_offset'][i])) for i in (0, 1))")
xdotool mousemove --window "$e2e_win" "$sx" "$sy"
E2E_SX=$sx E2E_SY=$sy e2e_wait "s['pen']['pointer_at'] is not None and abs(s['pen']['pointer_at'][0] + s['surface_offset'][0] - int(os.environ['E2E_SX'])) <= 2 and abs(s['pen']['pointer_at'][1] + s['surface_offset'][1] - int(os.environ['E2E_SY'])) <= 2"
e2e_ok $? "the ring follows the mouse over the 3-D view"
xdotool mousemove --window "$e2e_win" $((sx + 50)) $((sy + 40))
E2E_SX=$((sx + 50)) E2E_SY=$((sy + 40)) e2e_wait "s['pen']['pointer_at'] is not None and abs(s['pen']['pointer_at'][0] + s['surface_offset'][0] - int(os.environ['E2E_SX'])) <= 2 and abs(s['pen']['pointer_at'][1] + s['surface_offset'][1] - int(os.environ['E2E_SY'])) <= 2"
e2e_ok $? "and again when it moves"
e2e_picture pen-pointer
e2e_key l
e2e_wait "s['pen']['pointer'] is False and s['pen']['pointer_at'] is None"
e2e_ok $? "L again puts it away"

e2e_quit
e2e_ok $? "Ctrl+Q ends the program"

# ---- the pen while a value's field has the keyboard ----
e2e_start --model rolling-ball --window-size 1280x720
read -r x y < <(e2e_control field m)
[ -n "${x:-}" ]
e2e_ok $? "the field of m is there"
e2e_click_once "$x" "$y" "s['focus']['text'] is not None and s['pen']['on'] is False"
e2e_ok $? "a click in the field of m gives it the keyboard"
e2e_key ctrl+shift+p
e2e_wait "s['pen']['on'] is True and s['focus']['text'] is None"
e2e_ok $? "Ctrl+Shift+P in the field turns the pen on and takes the keys from the field"
e2e_key p
e2e_wait "s['pen']['on'] is False"
e2e_ok $? "P then puts it away (the key reaches the pen, not the field)"
e2e_click_once "$x" "$y" "s['focus']['text'] is not None"
e2e_key ctrl+shift+p
e2e_wait "s['pen']['on'] is True"
e2e_click_once "$x" "$y" "s['focus']['text'] is not None and s['pen']['on'] is True"
e2e_ok $? "back in the field with the pen on"
e2e_key Escape
e2e_wait "s['pen']['on'] is False and s['focus']['text'] is None and s['params']['m'] == 1"
e2e_ok $? "Escape in the field puts the pen away and leaves the field; m is unchanged"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
