#!/usr/bin/env bash
# A model given on the command line is derived off the window's thread, as one opened
# from the window is: the window shows at once, with the card saying what it derives,
# and answers meanwhile (its state, a key); once the system is ready it is installed and
# the command line's run options (--play, --set) follow.  --quit-after counts from there,
# so --screenshot pictures the model, not the wait.  The derivation is held by a test
# gate, so the window is seen answering on any machine, however fast it derives.
# Compare With → Vakonomic (Ctrl+K) derives a second system: that too happens off the
# window's thread, the first run going on meanwhile.
. "$(dirname "$0")/e2e-lib.sh"

model=$(cd "$(dirname "$0")/../../bench/models/pendulum" && pwd)/pendulum-20.cml
[ -r "$model" ] || { echo "Bail out! $model is missing"; exit 1; }
export CMLAB_DERIVED_CACHE=$e2e_tmp/derived CMLAB_NATIVE=0
export CMLAB_TEST_DERIVE_GATE=$e2e_tmp/go

e2e_screen 1280x720

# ---- cmlab --model FILE --play --set: the window before the system ----
e2e_start --model "$model" --play --set g=5 --window-size 1280x720
e2e_ok $? "the window shows while the pendulum's equations wait to be derived"
e2e_wait "s.get('deriving') == 'pendulum-20' and s['model'] is None"
e2e_ok $? "it answers, and says it derives the pendulum"
e2e_key F5
e2e_wait "s['presentation'] and s.get('deriving') == 'pendulum-20'"
e2e_ok $? "a key works meanwhile (F5: presentation mode)"
e2e_picture startup-card
touch "$CMLAB_TEST_DERIVE_GATE"
E2E_TRIES=6000 e2e_wait "s.get('deriving') is None and s['model'] == 'pendulum-20' and s['state'] == 'running' and s['t'] > 0"
e2e_ok $? "once derived the pendulum is installed and plays (--play)"
e2e_wait "s['params'].get('g') == 5"
e2e_ok $? "the command line's --set reaches it"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"

# ---- cmlab FILE --screenshot --quit-after: the picture waits for the model ----
rm -f "$CMLAB_TEST_DERIVE_GATE"
rm -rf "$CMLAB_DERIVED_CACHE"
shot=$e2e_tmp/shot.png stats=$e2e_tmp/stats.json
e2e_start "$model" --quit-after 0.5 --screenshot "$shot" --frame-stats "$stats" --window-size 1024x768
e2e_ok $? "the window shows with the file given as an argument"
e2e_wait "s.get('deriving') == 'pendulum-20' and s['quit_after'] == 0"
e2e_ok $? "--quit-after does not count while the model is derived"
[ ! -e "$shot" ]
e2e_ok $? "no picture is taken meanwhile"
touch "$CMLAB_TEST_DERIVE_GATE"
for i in $(seq 1 6000); do kill -0 "$e2e_app_pid" 2>/dev/null || break; sleep 0.1; done
wait "$e2e_app_pid"
e2e_ok $? "--quit-after ends the program once the model runs"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["model"] == "pendulum-20" else 1)' "$stats"
e2e_ok $? "it ended with the pendulum shown (its frame statistics name it)"
[ -s "$shot" ]
e2e_ok $? "the screenshot is written"

# ---- Ctrl+K: the vakonomic reading derived while the rolling ball runs on ----
touch "$CMLAB_TEST_DERIVE_GATE"
e2e_start --model rolling-ball --play --window-size 1280x720
e2e_ok $? "the window shows the rolling ball"
E2E_TRIES=6000 e2e_wait "s['model'] == 'rolling-ball' and s['state'] == 'running' and s['t'] > 0"
e2e_ok $? "it runs"
rm -f "$CMLAB_TEST_DERIVE_GATE"
e2e_key ctrl+k
e2e_wait "s.get('comparing') == 'vakonomic' and s['compare'] is None"
e2e_ok $? "Ctrl+K: the window answers while the vakonomic reading is derived"
t0=$(e2e_query "s['t']")
E2E_T0=$t0 e2e_wait "s['t'] > float(os.environ['E2E_T0']) and s.get('comparing') == 'vakonomic'"
e2e_ok $? "the rolling ball runs on meanwhile"
e2e_picture compare-card
touch "$CMLAB_TEST_DERIVE_GATE"
E2E_TRIES=6000 e2e_wait "s.get('comparing') is None and s['compare'] == 'vakonomic'"
e2e_ok $? "once derived, the vakonomic run is drawn beside it"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
