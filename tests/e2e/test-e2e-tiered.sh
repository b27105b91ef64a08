#!/usr/bin/env bash
# A model whose native code is not compiled yet plays at once (tiered evaluation,
# cml-native-queue.c): the window opens and runs on the interpreter while the C compiler
# has not even started — here a compiler that waits for the test's word, which a window
# that waited for it would never get — and plays on when the compiler is let go and the
# native code arrives mid-run.
. "$(dirname "$0")/e2e-lib.sh"

cc=$(command -v cc || command -v gcc) || { echo "1..0 # SKIP no C compiler"; exit 0; }
cat > "$e2e_tmp/cc" <<EOS
#!/bin/sh
while [ ! -e "$e2e_tmp/go" ]; do sleep 0.05; done
exec "$cc" "\$@"
EOS
chmod +x "$e2e_tmp/cc"
export CMLAB_CC=$e2e_tmp/cc CMLAB_NATIVE_CACHE=$e2e_tmp/native CMLAB_NATIVE_TIMEOUT=86400
unset CMLAB_NATIVE

e2e_screen 1280x720
e2e_start --model rolling-ball --play
e2e_ok $? "the window shows a model whose native code is not compiled"
e2e_wait "s['state'] == 'running' and s['t'] > 1"
e2e_ok $? "it plays while the compiler has not started"
t0=$(e2e_query "s['t']")
touch "$e2e_tmp/go"
# the compiler runs now; the run goes on through the switch (the objects appear)
for i in $(seq 1 "$E2E_TRIES"); do
  [ -n "$(find "$e2e_tmp/native" -name '*.so' 2>/dev/null | head -1)" ] && break
  sleep 0.1
done
[ -n "$(find "$e2e_tmp/native" -name '*.so' 2>/dev/null | head -1)" ]
e2e_ok $? "the compiler, let go, writes the native code"
E2E_T0=$t0 e2e_wait "s['state'] == 'running' and s['t'] > float(os.environ['E2E_T0']) + 2"
e2e_ok $? "the window plays on once native code is there"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
