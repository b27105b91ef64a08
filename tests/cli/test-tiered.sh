#!/usr/bin/env bash
# Tiered evaluation from the command line (cml-native-queue.c): a model whose native code is
# not in the cache runs at once on the interpreter while the compiler works, and its output
# is byte for byte that of a run native throughout and of the interpreter alone.
#
#   test-tiered.sh CMLAB-CLI MODELS-DIR
#
# The compiler is a wrapper that waits for this test's word before it compiles: a run that
# waited for it would never end (the test's bound says so), a run that did not wait ends on
# the interpreter.  Then, the compiler released, a longer run takes native code mid-way (the
# cache's objects appear) and must write the same bytes.  Nothing here waits for a time.
set -u
cli=${1:?cmlab-cli}
models=${2:?models dir}
cc=$(command -v cc || command -v gcc) || { echo "1..0 # SKIP no C compiler"; exit 0; }
work=$(mktemp -d)
trap 'touch "$work/go"; rm -rf "$work"' EXIT
echo "1..3"
n=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
fail=0

cat > "$work/cc" <<EOS
#!/bin/sh
# compiles only once the test says so
while [ ! -e "$work/go" ]; do sleep 0.05; done
exec "$cc" "\$@"
EOS
chmod +x "$work/cc"
model=$models/pendulum-5.cml
[ -f "$model" ] || model=martinet

# 1. the interpreter alone
CMLAB_NATIVE=0 "$cli" simulate "$model" --t-end 20 --dt-out 0.05 > "$work/interp.csv" 2> "$work/err" \
  || { cat "$work/err"; not_ok "the interpreter's run"; }

# 2. a cold cache and a compiler that does not start: the run ends all the same (a bound of
#    ten minutes on a run of a fraction of a second: only a run that waits reaches it)
export CMLAB_NATIVE_CACHE=$work/cache CMLAB_CC=$work/cc CMLAB_NATIVE_TIMEOUT=86400
unset CMLAB_NATIVE
if timeout 600 "$cli" simulate "$model" --t-end 20 --dt-out 0.05 > "$work/tier.csv" 2> "$work/err"; then
  ok "a run with its native code still compiling ends on the interpreter"
else
  cat "$work/err"; not_ok "a run with its native code still compiling ends on the interpreter (exit $?)"
fi
cmp -s "$work/interp.csv" "$work/tier.csv" && ok "… with the interpreter's bytes" \
  || not_ok "… with the interpreter's bytes"

# 3. the compiler released: a run long enough to see native code arrive mid-way, against a
#    run native throughout ($CMLAB_NATIVE=wait, its own cold cache)
touch "$work/go"
CMLAB_NATIVE=wait CMLAB_NATIVE_CACHE=$work/cache-wait "$cli" simulate "$model" --t-end 6000 --dt-out 0.5 \
  > "$work/native.csv" 2> "$work/err" || cat "$work/err"
G_MESSAGES_DEBUG=cml-native "$cli" simulate "$model" --t-end 6000 --dt-out 0.5 > "$work/switched.csv" \
  2> "$work/err" || cat "$work/err"
# (whether the compiler finished before the run did depends on the machine: said, not tested)
echo "# native objects built during the run: $(grep -c 'built in the background' "$work/err")"
if cmp -s "$work/native.csv" "$work/switched.csv" && [ -s "$work/native.csv" ]; then
  ok "a run that switches to native code mid-way writes the bytes of a run native throughout"
else
  not_ok "a run that switches to native code mid-way writes the bytes of a run native throughout"
fi
exit $fail
