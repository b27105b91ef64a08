#!/usr/bin/env bash
# A large model opened while another runs: its equations are derived off the window's
# thread.  The 50-link pendulum of the scaling benchmark, on a cold derived-system cache,
# takes seconds to derive; opened with Ctrl+O, the window answers meanwhile (the state
# arrives and says what it derives), the rolling ball goes on running, and the pendulum is
# shown once its system is ready.  Then its Equations page: it shows its first equation
# while the window goes on answering.
. "$(dirname "$0")/e2e-lib.sh"

model=$(cd "$(dirname "$0")/../../bench/models/pendulum" && pwd)/pendulum-50.cml
[ -r "$model" ] || { echo "Bail out! $model is missing"; exit 1; }
# cold: nothing derived before; no C compiler (the interpreter runs it)
export CMLAB_DERIVED_CACHE=$e2e_tmp/derived CMLAB_NATIVE=0
# the derivation begins once the test lets it go: the window is seen answering meanwhile
# on any machine, however fast its derivation would be
export CMLAB_TEST_DERIVE_GATE=$e2e_tmp/go

e2e_screen 1280x720
# (the gate open for the rolling ball given on the command line, also derived on a worker)
touch "$CMLAB_TEST_DERIVE_GATE"
e2e_start --model rolling-ball --play --window-size 1280x720
e2e_ok $? "the window shows the rolling ball"
E2E_TRIES=6000 e2e_wait "s['model'] == 'rolling-ball' and s['state'] == 'running' and s['t'] > 0"
e2e_ok $? "it runs"
rm -f "$CMLAB_TEST_DERIVE_GATE"

# File > Open: the path typed into the file dialog's location, as a person would
e2e_key ctrl+o
e2e_wait "s['windows'] == 2"
e2e_ok $? "Ctrl+O opens the file dialog"
e2e_key ctrl+l
xdotool type --delay 20 "$model"
e2e_key Return
e2e_wait "s['windows'] == 1"
e2e_ok $? "the file dialog closes on the path typed"

# the window answers while the pendulum's equations are derived, and the ball runs on
e2e_wait "s.get('deriving') == 'pendulum-50' and s['model'] == 'rolling-ball' and s['state'] == 'running'"
e2e_ok $? "the window answers while it derives the pendulum, the rolling ball still shown"
t0=$(e2e_query "s['t']")
E2E_T0=$t0 e2e_wait "s['t'] > float(os.environ['E2E_T0']) or s.get('deriving') is None"
e2e_ok $? "the run goes on meanwhile"
e2e_picture derive-card
touch "$CMLAB_TEST_DERIVE_GATE"

# ready: the pendulum is shown (deriving it may take minutes on a busy machine)
E2E_TRIES=6000 e2e_wait "s.get('deriving') is None and s['model'] == 'pendulum-50'"
e2e_ok $? "the pendulum is shown once its equations are derived"

e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
