# e2e-lib.sh — drives the real cmlab window as a person does: a virtual screen (Xvfb) with
# a window manager (openbox), keys and the pointer sent from outside (xdotool), pictures
# taken with ImageMagick.  Sourced by the scenarios in this folder; each prints TAP.
#
# What the window shows is read from the state it writes on SIGUSR1 to $CMLAB_STATE_FILE
# (src/app/cml-window-state.c): every wait below waits for a state, never for a time, and
# gives up after a bound of tries (E2E_TRIES, 1200 by default: two minutes of polling a
# tenth of a second apart on a machine that answers), so a window that stopped answering
# fails its scenario instead of hanging it.
#
# Needs: Xvfb, openbox, xdotool, python3 (tools/debian-packages lists them); the built
# program in $CMLAB_APP and nothing installed.

set -u
for tool in Xvfb openbox xdotool xprop python3; do
  command -v "$tool" >/dev/null || { echo "Bail out! $tool is needed (tools/debian-packages lists it)"; exit 1; }
done
E2E_TRIES=${E2E_TRIES:-1200}
e2e_tmp=$(mktemp -d)
e2e_pids=()
e2e_n=0
e2e_failed=0
e2e_app_pid=""
e2e_win=""
export GSETTINGS_BACKEND=memory XDG_CONFIG_HOME=$e2e_tmp/config XDG_DATA_HOME=$e2e_tmp/data \
       XDG_CACHE_HOME=$e2e_tmp/cache CMLAB_STATE_FILE=$e2e_tmp/state.json NO_AT_BRIDGE=1 \
       ADW_DISABLE_PORTAL=1
unset WAYLAND_DISPLAY

e2e_cleanup () {
  for p in "${e2e_pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${E2E_KEEP:-}" ] && { echo "# kept $e2e_tmp"; return; }
  rm -rf "$e2e_tmp"
}
trap e2e_cleanup EXIT

# TAP: e2e_ok CONDITION-STATUS DESCRIPTION
e2e_ok () {
  e2e_n=$((e2e_n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $e2e_n - $2"; else echo "not ok $e2e_n - $2"; e2e_failed=1; fi
}
e2e_diag () { sed 's/^/# /'; }

# e2e_screen WxH: a new virtual screen with a window manager on it.
e2e_screen () {
  local fd=$e2e_tmp/display.$RANDOM
  Xvfb -displayfd 3 -screen 0 "$1x24" -nolisten tcp 3>"$fd" >/dev/null 2>&1 &
  e2e_pids+=($!)
  local i; for i in $(seq 1 "$E2E_TRIES"); do [ -s "$fd" ] && break; sleep 0.1; done
  [ -s "$fd" ] || { echo "Bail out! Xvfb did not start"; exit 1; }
  export DISPLAY=:$(cat "$fd")
  # the window manager is there when it names itself on the root window (started again
  # if it gave up: it may come up before the new server takes connections)
  local wm=""
  for i in $(seq 1 "$E2E_TRIES"); do
    if [ -z "$wm" ] || ! kill -0 "$wm" 2>/dev/null; then
      openbox >"$e2e_tmp/openbox.log" 2>&1 &
      wm=$!; e2e_pids+=($wm)
    fi
    xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id" && return 0
    sleep 0.1
  done
  echo "Bail out! openbox did not start"; e2e_diag <"$e2e_tmp/openbox.log"; exit 1
}

e2e_screen_close () {
  for p in "${e2e_pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  e2e_pids=()
}

# e2e_start ARGS...: the window, with ARGS; waits until it is shown and has the focus,
# its main loop has answered, and the model given is shown (derived).
e2e_start () {
  rm -f "$CMLAB_STATE_FILE"
  "$CMLAB_APP" "$@" >"$e2e_tmp/app.log" 2>&1 &
  e2e_app_pid=$!
  e2e_pids+=($e2e_app_pid)
  e2e_win=""
  local i
  for i in $(seq 1 "$E2E_TRIES"); do
    e2e_win=$(xdotool search --onlyvisible --pid "$e2e_app_pid" 2>/dev/null | head -1)
    [ -n "$e2e_win" ] && break
    kill -0 "$e2e_app_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$e2e_win" ]; then
    echo "# the window did not show:"; e2e_diag <"$e2e_tmp/app.log"; return 1
  fi
  xdotool windowactivate --sync "$e2e_win" >/dev/null 2>&1
  e2e_state >/dev/null || return 1
  # the model given is derived on a worker while the window shows: the scenario begins
  # once it is shown (unless a test gate holds the derivation, to see the window meanwhile)
  if [ -z "${CMLAB_TEST_DERIVE_GATE:-}" ] || [ -e "$CMLAB_TEST_DERIVE_GATE" ]; then
    E2E_TRIES=6000 e2e_wait "s.get('deriving') is None" || return 1
  fi
}

# e2e_state: asks the window for its state and waits for the answer (a new serial);
# prints the JSON.  Fails when the window does not answer within the bound.
e2e_state () {
  local before=0 i now
  [ -s "$CMLAB_STATE_FILE" ] && before=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["serial"])' "$CMLAB_STATE_FILE" 2>/dev/null || echo 0)
  for i in $(seq 1 "$E2E_TRIES"); do
    kill -0 "$e2e_app_pid" 2>/dev/null || { echo "# the window is gone" >&2; return 1; }
    # one signal every second: the answer comes from the main loop, whenever it runs
    [ $((i % 10)) -eq 1 ] && kill -USR1 "$e2e_app_pid" 2>/dev/null
    now=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["serial"])' "$CMLAB_STATE_FILE" 2>/dev/null || echo 0)
    if [ "$now" -gt "$before" ]; then cat "$CMLAB_STATE_FILE"; return 0; fi
    sleep 0.1
  done
  echo "# the window did not answer (its main loop is stuck)" >&2
  return 1
}

# e2e_query PYTHON-EXPRESSION: evaluates the expression on the state `s` (a dict) and
# prints the result.
e2e_query () {
  e2e_state >"$e2e_tmp/q.json" || return 1
  python3 -c 'import json,os,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$e2e_tmp/q.json" "$1"
}

# e2e_wait PYTHON-CONDITION: waits until the condition on the state `s` holds; fails
# (printing the last state) when it does not within the bound.
e2e_wait () {
  local i
  for i in $(seq 1 $((E2E_TRIES / 10))); do
    e2e_state >"$e2e_tmp/w.json" || return 1
    python3 -c 'import json,os,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
      "$e2e_tmp/w.json" "$1" && return 0
  done
  echo "# waited in vain for: $1" >&2
  e2e_diag <"$e2e_tmp/w.json" >&2
  return 1
}

# e2e_control KIND NAME [N]: the centre of a control (the Nth of that kind and name,
# from 0) in the window's X window ("X Y"; nothing when there is none).
e2e_control () {
  E2E_KIND=$1 E2E_NAME=$2 E2E_NTH=${3:-0} e2e_query "' '.join(str(round(c['at'][i] + s['surface_offset'][i])) for i in (0, 1)) if len(m := [c for c in s['controls'] if c['kind'] == os.environ['E2E_KIND'] and c['name'] == os.environ['E2E_NAME']]) > int(os.environ['E2E_NTH']) and (c := m[int(os.environ['E2E_NTH'])]) else ''"
}

# e2e_click_once X Y CONDITION: the pointer moved to (X, Y) of the window, the window
# answering once after that (it has seen the pointer come), then one click, then a wait
# for CONDITION — which must follow from that one click: a click the window loses fails
# (a busy machine delays a click, the X server queues it; it does not lose it).
e2e_click_once () {
  xdotool mousemove --window "$e2e_win" "$1" "$2"
  e2e_state >/dev/null || return 1
  xdotool click 1
  E2E_TRIES=${E2E_CLICK_TRIES:-300} e2e_wait "$3"
}

# e2e_key KEYS...: keys pressed on the window, as from the keyboard.
e2e_key () { xdotool key --clearmodifiers "$@"; }

# e2e_quit: Ctrl+Q; waits for the program to end (fails if it does not).
e2e_quit () {
  e2e_key ctrl+q
  local i
  for i in $(seq 1 "$E2E_TRIES"); do
    kill -0 "$e2e_app_pid" 2>/dev/null || { wait "$e2e_app_pid" 2>/dev/null; return 0; }
    sleep 0.1
  done
  echo "# Ctrl+Q did not end the program" >&2
  kill "$e2e_app_pid" 2>/dev/null
  return 1
}

# e2e_picture NAME: the whole screen as a PNG in $E2E_PICTURES (when set), for a look.
e2e_picture () {
  [ -n "${E2E_PICTURES:-}" ] || return 0
  mkdir -p "$E2E_PICTURES" && import -window root "$E2E_PICTURES/$1.png" 2>/dev/null
}

e2e_done () {
  echo "1..$e2e_n"
  exit $e2e_failed
}
