#!/usr/bin/env bash
# The Equations page of a large system opens at once: a many-link pendulum's equations
# typeset and its conserved quantities checked take far longer than the rest (tens of
# seconds for 50 links), and are made on a worker.  The window answers while they are made
# (the page shown, its account still coming: the account waits for the test's gate, so this
# is seen on any machine), then the page shows its first equation.
. "$(dirname "$0")/e2e-lib.sh"

model=$(cd "$(dirname "$0")/../../bench/models/pendulum" && pwd)/pendulum-20.cml
[ -r "$model" ] || { echo "Bail out! $model is missing"; exit 1; }
export CMLAB_DERIVED_CACHE=$e2e_tmp/derived CMLAB_NATIVE=0
export CMLAB_TEST_ACCOUNT_GATE=$e2e_tmp/go

e2e_screen 1280x720
# deriving the pendulum before the window shows may take minutes on a busy machine
E2E_TRIES=6000 e2e_start --model "$model" --page=equations --window-size 1280x720
e2e_ok $? "the window shows the pendulum with its Equations page"
e2e_wait "s['model'] == 'pendulum-20' and s['equations']['shown'] and s['equations']['busy']"
e2e_ok $? "the window answers while the page's equations are being made"
e2e_picture equations-busy
touch "$CMLAB_TEST_ACCOUNT_GATE"
E2E_TRIES=6000 e2e_wait "s['equations']['first'] is not None and not s['equations']['busy']"
e2e_ok $? "then the page shows its first equation: $(e2e_query "s['equations']['first']")"
# (compared in one Unicode form and without spaces: the dot over a may be a combining
# mark, the spaces thin ones)
e2e_query "''.join(c for c in __import__('unicodedata').normalize('NFC', s['equations']['first']) if not c.isspace()).startswith(__import__('unicodedata').normalize('NFC', 'ȧ₁='))" | grep -q True
e2e_ok $? "the first equation is that of the first angle"
e2e_picture equations-done
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
