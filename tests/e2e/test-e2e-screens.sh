#!/usr/bin/env bash
# The screens classrooms have — a 4:3 projector (1024×768), 1280×720 and 1920×1080 — in
# English and Spanish (whose texts are longer): the window opens inside the screen with
# nothing cut off, F5 (presentation mode) keeps it so, and F5 again gives the layout back.
# "Cut off": the window reaches past the screen, or a widget past the window.
. "$(dirname "$0")/e2e-lib.sh"

# the window's visible rectangle inside the screen, and no widget outside the window
check_fits () {
  local what=$1 sw=$2 sh=$3
  local state; state=$(e2e_state) || { e2e_ok 1 "$what: the window answers"; return; }
  eval "$(xdotool getwindowgeometry --shell "$e2e_win")"
  python3 - "$X" "$Y" "$sw" "$sh" "$state" <<'PY'
import json, sys
x, y, sw, sh = (int(a) for a in sys.argv[1:5])
s = json.loads(sys.argv[5])
ox, oy = s["surface_offset"]
w, h = s["window"]
left, top = x + ox, y + oy
problems = []
if left < -1 or top < -1 or left + w > sw + 1 or top + h > sh + 1:
    problems.append(f"the window {w}x{h} at ({left:.0f}, {top:.0f}) reaches past the {sw}x{sh} screen")
if s["min_size"][0] > w + 1 or s["min_size"][1] > h + 1:
    problems.append(f"the window needs {s['min_size'][0]}x{s['min_size'][1]} and has {w}x{h}")
for o in s["outside"]:
    problems.append(o)
for p in problems:
    print("# " + p)
sys.exit(1 if problems else 0)
PY
  e2e_ok $? "$what: nothing cut off"
}

for lang in en es; do
  for size in 1024x768 1280x720 1920x1080; do
    sw=${size%x*}; sh=${size#*x}
    e2e_screen "$size"
    LANGUAGE=$lang LC_ALL=C.UTF-8 e2e_start --model rolling-ball --play
    e2e_ok $? "$lang $size: the window shows"
    e2e_wait "s['state'] == 'running' and s['t'] > 0"
    check_fits "$lang $size, normal layout" "$sw" "$sh"
    e2e_picture "screens-$lang-$size-normal"
    e2e_key F5
    e2e_wait "s['presentation']"
    e2e_ok $? "$lang $size: F5 turns presentation mode on"
    check_fits "$lang $size, presentation mode" "$sw" "$sh"
    e2e_wait "all(v >= 0.025 * s['window'][1] for v in s['text_px'].values())"
    e2e_ok $? "$lang $size: in presentation mode the plots' labels, the legend and the status line are at least 2.5 % of the height"
    e2e_picture "screens-$lang-$size-presentation"
    e2e_key F5
    e2e_wait "not s['presentation'] and s['sidebar']"
    e2e_ok $? "$lang $size: F5 again gives the layout back"
    check_fits "$lang $size, back from presentation mode" "$sw" "$sh"
    e2e_quit
    e2e_ok $? "$lang $size: Ctrl+Q ends the program"
    e2e_screen_close
  done
done
e2e_done
