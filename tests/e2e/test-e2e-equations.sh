#!/usr/bin/env bash
# The Equations page of a large system opens at once: the 50-link pendulum's 100
# equations typeset and its conserved quantities checked take far longer than the rest
# (tens of seconds), and are made on a worker.  The window answers while they are made
# (the page shown, its account still coming), then the page shows its first equation.
. "$(dirname "$0")/e2e-lib.sh"

model=$(cd "$(dirname "$0")/../../bench/models/pendulum" && pwd)/pendulum-50.cml
[ -r "$model" ] || { echo "Bail out! $model is missing"; exit 1; }
export CMLAB_DERIVED_CACHE=$e2e_tmp/derived CMLAB_NATIVE=0

e2e_screen 1280x720
# deriving the pendulum before the window shows may take minutes on a busy machine
E2E_TRIES=6000 e2e_start --model "$model" --page=equations --window-size 1280x720
e2e_ok $? "the window shows the pendulum with its Equations page"
e2e_wait "s['model'] == 'pendulum-50' and s['equations']['shown'] and s['equations']['busy']"
e2e_ok $? "the window answers while the page's equations are being made"
e2e_picture equations-busy
E2E_TRIES=6000 e2e_wait "s['equations']['first'] is not None and not s['equations']['busy']"
e2e_ok $? "then the page shows its first equation: $(e2e_query "s['equations']['first']")"
e2e_query "s['equations']['first'].startswith('ȧ₁ = ')" | grep -q True
e2e_ok $? "the first equation is that of the first angle"
e2e_picture equations-done
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
