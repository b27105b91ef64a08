#!/usr/bin/env bash
# The side panel as a person uses it: a refused value is explained under its own field and
# stays; a field shows a whole typical value (-0.333333, 1.23456e-05) at 1280×720 and on a
# 4:3 projector; a rigid body no body can be (I₁ > I₂ + I₃) is refused with the reason; the
# presets' list shows every title whole.
. "$(dirname "$0")/e2e-lib.sh"

# e2e_type KIND NAME TEXT: TEXT typed into a field, as a person does: click, select all,
# type, Return.
e2e_type () {
  local x y
  read -r x y < <(e2e_control "$1" "$2")
  [ -n "${x:-}" ] || { echo "# no $1 $2" >&2; return 1; }
  xdotool mousemove --window "$e2e_win" "$x" "$y" click --repeat 3 1
  e2e_key ctrl+a
  [ -n "$3" ] && xdotool type --delay 30 -- "$3"
  e2e_key Return
}

# the condition "the message stands under field NAME": below its centre, within two rows
under_field () {
  echo "s['panel_message'] is not None and s['panel_message_at'] is not None and any(c['kind'] == 'field' and c['name'] == '$1' and 0 < s['panel_message_at'][1] - c['at'][1] < 80 for c in s['controls'])"
}

# e2e_presets_whole LABEL: opens the presets' list; every title in it shows, nothing to
# scroll, no wider than the window; closes it with Escape
e2e_presets_whole () {
  local x y
  read -r x y < <(e2e_control dropdown preset_dropdown)
  [ -n "${x:-}" ] || { e2e_ok 1 "$1: the presets' list is there"; return; }
  xdotool mousemove --window "$e2e_win" "$x" "$y" click 1
  e2e_wait "any(p['owner'] == 'preset_dropdown' and not p['scrolls'] and p['width'] <= s['window'][0] for p in s['popups'])"
  e2e_ok $? "$1: the presets' list shows every title whole, nothing to scroll"
  e2e_query "s['popups']" | e2e_diag
  e2e_picture "presets-$1"
  e2e_key Escape
  e2e_wait "s['popovers'] == 0"
}

# the condition "field NAME shows TEXT whole"
whole () {
  echo "any(c['kind'] == 'field' and c['name'] == '$1' and c['text'] == '$2' and c['text_whole'] for c in s['controls'])"
}

for size in 1280x720 1024x768; do
  e2e_screen "$size"
  e2e_start --model rigid-body
  e2e_ok $? "$size: the window shows the rigid body"

  # ---- a refused value: told under its field, and it stays ----
  e2e_type field W₃ "abc"
  e2e_wait "$(under_field W₃)"
  e2e_ok $? "$size: “abc” in W₃ is refused with a message just under the field"
  e2e_query "s['panel_message']" | e2e_diag
  # the message stays while the person reads it: a later state still has it
  e2e_wait "s['serial'] > $(e2e_query "s['serial']") and $(under_field W₃)"
  e2e_ok $? "$size: the message stays"

  # ---- a whole typical value in a field ----
  e2e_type field W₁ "-0.333333"
  e2e_wait "$(whole W₁ -0.333333)"
  e2e_ok $? "$size: the field W₁ shows -0.333333 whole"
  e2e_wait "s['panel_message'] is None"
  e2e_ok $? "$size: a value taken clears the message"
  e2e_type field W₂ "1.23456e-05"
  e2e_wait "$(whole W₂ 1.23456e-05)"
  e2e_ok $? "$size: the field W₂ shows 1.23456e-05 whole"
  e2e_type field W₃ "0.333333"
  e2e_wait "$(whole W₃ 0.333333)"
  e2e_ok $? "$size: the field W₃ shows 0.333333 whole"

  # ---- no body has I₁ = 6 with I₂ = 2, I₃ = 3 ----
  e2e_type field I₁ "6"
  e2e_wait "s['params']['I1'] == 1 and $(under_field I₁) and 'I₂ + I₃' in s['panel_message']"
  e2e_ok $? "$size: I₁ = 6 with I₂ = 2, I₃ = 3 is refused under its field, with the condition"
  e2e_query "s['panel_message']" | e2e_diag
  e2e_type field I₁ "4.5"
  e2e_wait "s['params']['I1'] == 4.5 and s['panel_message'] is None"
  e2e_ok $? "$size: I₁ = 4.5 is possible and taken"
  e2e_picture "panel-$size"
  e2e_presets_whole "$size rigid body"
  e2e_quit
  e2e_ok $? "$size: Ctrl+Q ends the program"
  e2e_screen_close
done

# ---- the rolling ball's three presets ----
e2e_screen 1280x720
e2e_start --model rolling-ball
e2e_ok $? "1280x720: the window shows the rolling ball"
e2e_presets_whole "1280x720 rolling ball"
e2e_quit
e2e_screen_close

# ---- the plate–ball's momenta, on a 4:3 projector ----
e2e_screen 1024x768
e2e_start --model plate-ball
e2e_ok $? "1024x768: the window shows the plate–ball"
e2e_type field p₁ "-1.23456e-05"
e2e_wait "$(whole p₁ -1.23456e-05)"
e2e_ok $? "1024x768: the momentum field p₁ shows -1.23456e-05 whole"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
