#!/bin/bash
# test-bounds.sh — every command of cmlab-cli ends in bounded time and memory, whatever it
# is asked: sweep streams its rows (a 10⁸-point grid under a 1.5 GB address-space limit),
# refuses more numbers than its budget and says how to split them into shards, caps
# --jobs and runs on the threads it gets, drops its temporary file on a signal, and writes
# the same bytes as before (a reference made by the sweep that kept every row); shoot and
# simulate refuse a span no run reaches (forwards and backwards), shoot gives up on a far
# target; poincare writes crossings as it finds them and stops at --max-crossings; plot
# caps its series and a sweep file's columns, and shortens a long title quickly.
#
# Arguments: the built cmlab-cli, the directory of this file (the reference CSV), and
# "render" when cmlab-cli can plot.  Each run has a time limit (timeout) so that a
# regression fails its case instead of hanging the suite; no case measures time.
set -u
cli=$(realpath "$1")
here=$(realpath "$2")
render=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
fail=0
ok()
{
    n=$((n + 1))
    echo "ok $n - $1"
}
not_ok()
{
    n=$((n + 1))
    echo "not ok $n - $1"
    fail=1
}
skip()
{
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}
# expect WHAT STATUS PATTERN: the last run ($status, $tmp/err) exited STATUS and said PATTERN
expect()
{
    if [[ $status == "$2" ]] && grep -q -- "$3" "$tmp/err"; then
        ok "$1"
    else
        not_ok "$1: exit $status (expected $2), standard error: $(head -c 600 "$tmp/err")"
    fi
}

# AddressSanitizer reserves terabytes of address space: no ulimit -v there
asan=0
if ldd "$cli" 2>/dev/null | grep -q 'libasan'; then
    asan=1
fi

# rk8pd named: the reference holds its bytes (its table: the first line, the columns and
# the rows; the comment lines after the first, which name cmlab's version, are left out)
grid=(rolling-ball --vary Omega=0:2:5 --vary k2=0.2:0.6:3 --t-end 1 --measure x,y --at 0.5,1 --integrator rk8pd)
table()
{
    awk 'NR == 1 || !/^#/' "$1"
}

# --- sweep: the same bytes as the sweep that kept its rows, with any number of threads
for j in 1 2 3; do
    timeout -s KILL 120 "$cli" sweep "${grid[@]}" --jobs $j > "$tmp/a.csv" 2> "$tmp/err"
    if cmp -s <(table "$tmp/a.csv") "$here/sweep-reference.csv" && grep -qx '# integrator: rk8pd, rtol = 1e-10, atol = 1e-12' "$tmp/a.csv"; then
        ok "sweep --jobs $j writes the reference bytes"
    else
        not_ok "sweep --jobs $j differs from the reference: $(diff <(table "$tmp/a.csv") "$here/sweep-reference.csv" | head -5) $(grep '^# integrator' "$tmp/a.csv")"
    fi
done
timeout -s KILL 120 "$cli" sweep "${grid[@]}" --jobs 2 --shard 2/4 > "$tmp/b.csv" 2> "$tmp/err"
if cmp -s <(table "$tmp/b.csv") <(awk 'NR <= 2 || (NR - 3) % 4 == 1' "$here/sweep-reference.csv"); then
    ok "sweep --shard 2/4 writes the reference's rows 1, 5, 9, …"
else
    not_ok "sweep --shard 2/4 differs from the reference's rows"
fi

# --- sweep: a 10⁸-point grid streams its rows in bounded memory (it reserved 2.1 GB first)
if [[ $asan == 1 ]]; then
    skip "sweep of 10^8 points under ulimit -v" "AddressSanitizer build"
else
    lines=$( (ulimit -v 1500000
              timeout -s KILL 120 "$cli" sweep rolling-ball --vary Omega=0:1:100000000 --t-end 0.001 \
                  --measure x --jobs 2 2> "$tmp/err") | head -n 20 | wc -l)
    if [[ $lines == 20 ]]; then
        ok "sweep of 10^8 points streams its first rows under a 1.5 GB limit"
    else
        not_ok "sweep of 10^8 points: $lines lines of 20 under a 1.5 GB limit; $(head -c 300 "$tmp/err")"
    fi
fi

# --- sweep: more numbers than the budget are refused, with the shards to split into
timeout -s KILL 60 "$cli" sweep rolling-ball --vary Omega=0:1:10000000 --t-end 1 \
    --measure "$(printf 'x,%.0s' {1..100})y" > "$tmp/out" 2> "$tmp/err"
status=$?
expect "sweep of 10^7 points × 101 columns is refused with the shards to run" 2 "more than 10^9.*--shard 1/2 to --shard 2/2"
timeout -s KILL 60 "$cli" sweep rolling-ball --vary Omega=0:1:3 --t-end 1 --measure "$(printf 'x,%.0s' {1..999})y" \
    --at "$(seq -s, 0.005 0.005 1)" > "$tmp/out" 2> "$tmp/err"
status=$?
expect "sweep of 10^3 quantities at 200 times is refused" 2 "200000 columns a row, more than 100000"

# --- sweep: --jobs at most 256, and the threads the system gives
timeout -s KILL 60 "$cli" sweep "${grid[@]}" --jobs 900 > "$tmp/out" 2> "$tmp/err"
status=$?
expect "sweep --jobs 900 is refused" 2 "from 1 to 256"
if [[ $asan == 1 ]]; then
    skip "sweep on the threads it gets" "AddressSanitizer build"
else
    # thread stacks of 100 MB in 400 MB of address space: a few threads, or none — with an
    # empty native cache, so that the background build wants a thread of its own too
    for stack in 100000 1000000; do
        (ulimit -s $stack; ulimit -v 400000
         export CMLAB_NATIVE_CACHE="$tmp/native-cache-$stack"
         exec timeout -s KILL 120 "$cli" sweep "${grid[@]}" --jobs 16 > "$tmp/a.csv" 2> "$tmp/err")
        status=$?
        if [[ $status == 0 ]] && cmp -s <(table "$tmp/a.csv") "$here/sweep-reference.csv"; then
            ok "sweep --jobs 16 with stacks of $stack kB runs on the threads it gets ($(grep -o 'ran on [0-9]*' "$tmp/err"))"
        else
            not_ok "sweep --jobs 16 with stacks of $stack kB: exit $status; $(head -c 300 "$tmp/err")"
        fi
    done
fi

# --- sweep -o: a signal drops the temporary file (as simulate's and render's)
set -m  # background jobs of their own, with SIGINT as a terminal gives it
for sig in INT TERM HUP; do
    # a hangup this shell was started ignoring (nohup) cannot reach the sweep at all
    if [[ $sig == HUP ]] && (( 0x$(awk '/^SigIgn:/ {print $2}' /proc/$$/status) & 1 )); then
        ok "sweep -o interrupted by SIGHUP # SKIP hangups are ignored here (nohup)"
        continue
    fi
    dir="$tmp/sig-$sig"
    mkdir "$dir"
    "$cli" sweep rolling-ball --vary Omega=0:1:100000 --t-end 1 --measure x --jobs 1 -o "$dir/out.csv" \
        2> "$tmp/err" &
    pid=$!
    # wait (bounded) for the temporary file with its first rows
    for _ in $(seq 600); do
        tmpfile=$(find "$dir" -name '.out.csv.cmlab-tmp-*' -size +0 2>/dev/null | head -1)
        [[ -n $tmpfile ]] && break
        sleep 0.1
    done
    kill -s "$sig" "$pid"
    wait "$pid"
    status=$?
    left=$(ls -A "$dir")
    if [[ -n $tmpfile && $status == $((128 + $(kill -l "$sig"))) && -z $left ]]; then
        ok "sweep -o interrupted by SIG$sig leaves nothing behind"
    else
        not_ok "sweep -o interrupted by SIG$sig: exit $status, left: [$left] (temporary seen: [$tmpfile])"
        kill -s KILL "$pid" 2>/dev/null
    fi
done
set +m

# --- shoot and simulate: a span no run reaches is refused at once
timeout -s KILL 120 "$cli" shoot martinet --t-end 1e300 --target x1=1,x2=2,x3=0.3 > "$tmp/out" 2> "$tmp/err"
status=$?
expect "shoot --t-end 1e300 is refused" 2 "out of reach"
timeout -s KILL 120 "$cli" simulate rolling-ball --t-start 0 --t-end -1e300 > "$tmp/out" 2> "$tmp/err"
status=$?
expect "simulate --t-start 0 --t-end -1e300 is refused as forwards is" 2 "out of reach"
timeout -s KILL 120 "$cli" simulate rolling-ball --t-start 5 --t-end -1e300 > "$tmp/out" 2> "$tmp/err"
status=$?
expect "simulate --t-start 5 --t-end -1e300 is refused" 2 "from t = 5 to t = -"

# --- shoot: a target far from where the guess goes ends with a reason
timeout -s KILL 290 "$cli" shoot martinet --t-end 5 --target x1=1e6,x2=2,x3=0.3 > "$tmp/out" 2> "$tmp/err"
status=$?
expect "shoot to a far target gives up with a reason" 1 "shooting failed"

# --- poincare: rows as they are found, and --max-crossings
poincare=(rolling-ball --section x=0.9 --direction both --columns y,u)
lines=$(timeout -s KILL 120 "$cli" poincare "${poincare[@]}" --t-end 1000000 2> "$tmp/err" | head -n 10 | wc -l)
if [[ $lines == 10 ]]; then
    ok "poincare writes its crossings as it finds them"
else
    not_ok "poincare --t-end 10^6 piped to head: $lines lines of 10"
fi
timeout -s KILL 120 "$cli" poincare "${poincare[@]}" --t-end 300 --max-crossings 3 > "$tmp/out" 2> "$tmp/err"
status=$?
rows=$(grep -c '^[0-9]' "$tmp/out")
if [[ $status == 0 && $rows == 3 ]] && grep -q "stopped at the 3 crossings" "$tmp/err"; then
    ok "poincare --max-crossings 3 stops at 3"
else
    not_ok "poincare --max-crossings 3: exit $status, $rows rows; $(head -c 300 "$tmp/err")"
fi
timeout -s KILL 120 "$cli" poincare "${poincare[@]}" --t-end 300 > "$tmp/all" 2> /dev/null
if [[ -s $tmp/out && $(head -n 7 "$tmp/all") == "$(cat "$tmp/out")" ]]; then
    ok "poincare --max-crossings 3 writes the whole run's first 3 crossings"
else
    not_ok "poincare --max-crossings 3: not the whole run's first rows"
fi
timeout -s KILL 60 "$cli" poincare "${poincare[@]}" --t-end 300 --max-crossings 0 > "$tmp/out" 2> "$tmp/err"
status=$?
expect "poincare --max-crossings 0 is refused" 2 "from 1 to 10^8"

# --- plot: at most 64 series, a sweep file of at most 4096 columns, long titles shortened fast
if [[ $render != render ]]; then
    skip "plot's bounds" "cmlab-cli built without plots"
else
    timeout -s KILL 120 "$cli" plot rolling-ball --t-end 1 --y "$(printf 'x,%.0s' {1..2999})x" -o "$tmp/p.png" \
        > "$tmp/out" 2> "$tmp/err"
    status=$?
    expect "plot --y with 3000 names is refused" 2 "at most 64"
    {
        echo "# cmlab sweep: model rolling-ball; vary Omega"
        printf 'Omega'; printf ',c%d' $(seq 10000); echo
        for r in 0 1; do printf '%s' $r; printf ',1%.0s' $(seq 10000); echo; done
    } > "$tmp/wide.csv"
    timeout -s KILL 120 "$cli" plot "$tmp/wide.csv" -o "$tmp/p.png" > "$tmp/out" 2> "$tmp/err"
    status=$?
    expect "plot of a sweep file of 10000 columns is refused" 2 "plot reads at most 4096"
    {
        echo "# cmlab sweep: model rolling-ball; vary Omega"
        printf 'Omega'; printf ',c%d' $(seq 100); echo
        for r in 0 1; do printf '%s' $r; printf ',1%.0s' $(seq 100); echo; done
    } > "$tmp/w100.csv"
    timeout -s KILL 120 "$cli" plot "$tmp/w100.csv" -o "$tmp/p.png" > "$tmp/out" 2> "$tmp/err"
    status=$?
    expect "plot of 100 curves is refused, pointing to --y" 2 "at most 64: choose them with --y"
    timeout -s KILL 120 "$cli" plot "$tmp/w100.csv" --y c1,c50 -o "$tmp/p.png" > "$tmp/out" 2> "$tmp/err"
    status=$?
    expect "plot of 2 of the 100 curves" 0 "wrote"
    # a title of 6000 names: shortened by bisection (one character at a time took minutes)
    timeout -s KILL 60 "$cli" plot rolling-ball --t-end 1 --samples 10 --y x \
        --title "$(printf 'x, %.0s' {1..6000})" -o "$tmp/p.png" > "$tmp/out" 2> "$tmp/err"
    status=$?
    expect "plot with a title of 6000 names" 0 "wrote"
fi

echo "1..$n"
exit $fail
