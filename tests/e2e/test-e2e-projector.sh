#!/usr/bin/env bash
# Every built-in system on a 4:3 projector (1024×768) in presentation mode, in English
# and in Spanish, while it runs: the window inside the screen, no widget past it, no text
# cut short ("…": the title on two lines when it must, the distance from the start whole
# in the status line), and the type at least 2.5 % of the height.
. "$(dirname "$0")/e2e-lib.sh"

models=()
for f in "$(dirname "$0")"/../../models/*.cml; do models+=("$(basename "$f" .cml)"); done

e2e_screen 1024x768
for lang in en es; do
  for model in "${models[@]}"; do
    what="$lang $model at 1024×768, presentation mode"
    LANGUAGE=$lang LC_ALL=C.UTF-8 e2e_start --model "$model" --presentation --window-size 1024x768 --play
    e2e_ok $? "$what: the window shows"
    # running for a while: the distance from the start has its longest text by then
    e2e_wait "s['state'] == 'running' and s['t'] > 2 and s['presentation']"
    e2e_ok $? "$what: it runs"
    state=$(e2e_state)
    eval "$(xdotool getwindowgeometry --shell "$e2e_win")"
    python3 - "$X" "$Y" "$state" <<'PY'
import json, sys
x, y = int(sys.argv[1]), int(sys.argv[2])
s = json.loads(sys.argv[3])
ox, oy = s["surface_offset"]
w, h = s["window"]
problems = []
if x + ox < -1 or y + oy < -1 or x + ox + w > 1025 or y + oy + h > 769:
    problems.append(f"the window {w}x{h} at ({x + ox}, {y + oy}) reaches past the 1024x768 screen")
problems += s["outside"]
problems += [f"“{c['text']}” is cut short" for c in s["cut"]]
problems += [f"{k} text {v:.1f} px < 2.5 % of {h} px" for k, v in s["text_px"].items() if v < 0.025 * h]
for p in problems:
    print("# " + p)
sys.exit(1 if problems else 0)
PY
    e2e_ok $? "$what: nothing cut off, the type large enough"
    e2e_picture "projector-$lang-$model"
    e2e_quit
    e2e_ok $? "$what: Ctrl+Q ends the program"
  done
done
e2e_done
