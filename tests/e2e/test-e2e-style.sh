#!/usr/bin/env bash
# Light, dark and high contrast as the desktop asks, and the style chosen in the menu
# remembered: the window starts dark when Dark was chosen the last time, follows the
# desktop's dark preference (and its change while it runs) when Follow the Desktop is the
# choice, keeps to Light when Light was chosen whatever the desktop says, and knows when
# the desktop asks for high contrast.
#
# The desktop's settings are GNOME's keys (tests/e2e/desktop-style.gschema.xml) and
# cmlab's, in a key file of this test's own ($XDG_CONFIG_HOME): no settings portal
# (ADW_DISABLE_PORTAL), nothing read from the machine's desktop.
. "$(dirname "$0")/e2e-lib.sh"

command -v glib-compile-schemas >/dev/null || { echo "1..0 # SKIP glib-compile-schemas is needed (libglib2.0-bin)"; exit 0; }
mkdir -p "$e2e_tmp/schemas"
cp "$(dirname "$0")/desktop-style.gschema.xml" "$e2e_tmp/schemas/"
glib-compile-schemas "$e2e_tmp/schemas" || { echo "Bail out! the desktop's schema does not compile"; exit 1; }
export GSETTINGS_SCHEMA_DIR=$e2e_tmp/schemas${GSETTINGS_SCHEMA_DIR:+:$GSETTINGS_SCHEMA_DIR}
export GSETTINGS_BACKEND=keyfile ADW_DISABLE_PORTAL=1
keyfile=$XDG_CONFIG_HOME/glib-2.0/settings/keyfile

# settings LINES...: the key file's whole text (what cmlab and the desktop remember)
settings () {
  mkdir -p "$(dirname "$keyfile")"
  printf '%s\n' "$@" >"$keyfile.new" && mv "$keyfile.new" "$keyfile"
}

e2e_screen 1280x720

# Dark chosen in the menu the last time
settings "[org/cmlab/Cmlab]" "style='dark'"
e2e_start --model rolling-ball
e2e_ok $? "the window shows"
e2e_wait "s['style']['choice'] == 'dark' and s['style']['dark']"
e2e_ok $? "Dark, chosen the last time, is the style it starts in"
e2e_picture style-dark
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
grep -q "style='dark'" "$keyfile"
e2e_ok $? "the choice is still remembered after the run"

# Follow the Desktop (the default), the desktop asking for dark, then for its default
settings "[org/gnome/desktop/interface]" "color-scheme='prefer-dark'"
e2e_start --model rolling-ball
e2e_wait "s['style']['choice'] == 'follow' and s['style']['dark']"
e2e_ok $? "following the desktop, which asks for dark: dark"
settings "[org/gnome/desktop/interface]" "color-scheme='default'"
e2e_wait "s['style']['choice'] == 'follow' and not s['style']['dark']"
e2e_ok $? "the desktop back to its default while the window runs: light"
e2e_quit

# Light chosen, the desktop asking for dark: light
settings "[org/cmlab/Cmlab]" "style='light'" "[org/gnome/desktop/interface]" "color-scheme='prefer-dark'"
e2e_start --model rolling-ball
e2e_wait "s['style']['choice'] == 'light' and not s['style']['dark']"
e2e_ok $? "Light, chosen, wins over the desktop's dark"
e2e_quit

# high contrast, light and dark
settings "[org/gnome/desktop/a11y/interface]" "high-contrast=true"
e2e_start --model rolling-ball --play
e2e_wait "s['style']['high_contrast'] and not s['style']['dark'] and s['t'] > 1"
e2e_ok $? "the desktop asks for high contrast: the window knows"
e2e_picture style-high-contrast
e2e_quit
settings "[org/gnome/desktop/a11y/interface]" "high-contrast=true" "[org/gnome/desktop/interface]" "color-scheme='prefer-dark'"
e2e_start --model rolling-ball --play
e2e_wait "s['style']['high_contrast'] and s['style']['dark'] and s['t'] > 1"
e2e_ok $? "high contrast and dark together"
e2e_picture style-high-contrast-dark
e2e_quit

e2e_done
