#!/usr/bin/env bash
# The Poincaré section clicked as a person clicks it: the heavy top on G₂ = 0 crossed
# upwards, G₁ against W₁.  A click at G₁ = 0.5 starts a motion whose crossings lie where
# the click was (the first is the click, marked; the later ones on its side, G₁ > 0, not
# on the mirror branch near −0.5); the axes stop near |G₁| = 1, where |Γ| = 1 stops
# allowing a start; a click past G₁ = 1 is refused in plain words and starts nothing.
. "$(dirname "$0")/e2e-lib.sh"

e2e_screen 1280x720

e2e_start --model heavy-top --page=section
e2e_ok $? "the window shows"
e2e_wait "s['section']['shown'] and s['section']['map'] is not None"
e2e_ok $? "the section page is in view"
e2e_wait "s['section']['x_range'][1] < 1.2 and s['section']['x_range'][0] > -1.2"
e2e_ok $? "the G₁ axis keeps to the reachable region |G₁| ≤ 1 ($(e2e_query "s['section']['x_range']"))"

# the window point of the data point (G1, W1)
px () { e2e_query "' '.join(str(round(m[i] + (m[i + 2] - m[i]) * v + s['surface_offset'][i])) for i, v in ((0, $1), (1, $2)) if (m := s['section']['map']))"; }
read -r x y < <(px 0.5 0.2)
e2e_click_once "$x" "$y" "len(s['section']['starts']) == 1 and s['section']['running'] == 0 and len(s['section']['orbits']) == 1"
e2e_ok $? "a click at G₁ = 0.5, W₁ = 0.2 starts an orbit, which runs to its end"
# a pixel is this wide in G₁ and W₁
res="abs(1 / (s['section']['map'][2] - s['section']['map'][0])), abs(1 / (s['section']['map'][3] - s['section']['map'][1]))"
e2e_wait "(r := ($res)) and abs(s['section']['starts'][0][0] - 0.5) <= 3 * r[0] and abs(s['section']['starts'][0][1] - 0.2) <= 3 * r[1]"
e2e_ok $? "the start is where the click was ($(e2e_query "s['section']['starts'][0]"))"
e2e_wait "s['section']['orbits'][0]['first'] == s['section']['starts'][0]"
e2e_ok $? "the first crossing is the point clicked"
e2e_wait "s['section']['orbits'][0]['n'] > 3 and s['section']['orbits'][0]['later_x'][0] > 0"
e2e_ok $? "the later crossings lie on the click's side, G₁ > 0 ($(e2e_query "s['section']['orbits'][0]['later_x']"))"
e2e_picture section-heavy-top

# past G₁ = 1 (inside the axes' padding): no motion passes there
read -r x y < <(e2e_query "' '.join(str(round(m[i] + (m[i + 2] - m[i]) * v + s['surface_offset'][i])) for i, v in ((0, (1 + s['section']['x_range'][1]) / 2), (1, 0.2)) if (m := s['section']['map']))")
e2e_click_once "$x" "$y" "'no motion with this energy passes through' in (s['section']['status'] or '')"
e2e_ok $? "a click past G₁ = 1 is refused: $(e2e_query "s['section']['status']")"
e2e_wait "len(s['section']['starts']) == 1 and len(s['section']['orbits']) == 1 and 'casimir' not in s['section']['status']"
e2e_ok $? "and starts nothing"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
