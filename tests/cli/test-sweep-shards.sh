#!/bin/bash
# test-sweep-shards.sh — the Slurm recipe of doc/command-line.md (a job array of `cmlab-cli sweep
# --shard I/N -o part-I.csv` into one shared folder, then the parts merged with head and
# paste) gives the whole sweep byte for byte when every shard runs in a PID namespace of
# its own, as on the nodes of a cluster, where one shard's PID means nothing to another.
# Shard 1 is the long one: it starts first and ends long after the others, which start
# together while its temporary file lies in the folder and clean the folder of stale
# temporaries as they start.  Before, each removed the others' unfinished files ("writing
# part-1.csv failed: No such file or directory", the long shard's work lost).
#
# The recipe's script and merge are taken from doc/command-line.md as written; only the grid is
# made small (15 points, so the 8 shards have 2 rows or 1).  No clock: shard 1 is held at
# the rename that ends its file by a preloaded library (hold-rename.c) until the others
# have exited; every wait is for a file or an exit, bounded.  Each shard's PID is made
# one that is dead in every other namespace (its namespace's next PID set first).
#
# Arguments: doc/command-line.md, the built cmlab-cli, the built hold-rename library.  Needs root
# (unshare --pid): exit 77 (skipped) otherwise.
set -u
manual=$(realpath "$1")
cli=$(realpath "$2")
hold_lib=$(realpath "$3")
tmp=$(mktemp -d)
pids=()
cleanup()
{
    # timeout passes it on to unshare, whose end kills its namespace (--kill-child)
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

if [[ $(id -u) != 0 ]]; then
    echo "# SKIP a PID namespace of its own needs root (unshare --pid)"
    exit 77
fi
if ! command -v unshare >/dev/null; then
    echo "# SKIP no unshare(1) here"
    exit 77
fi
if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
    echo "# SKIP unshare --pid --fork --mount-proc does not work here (a container without the right)"
    exit 77
fi

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
finish()
{
    echo "1..$n"
    exit $fail
}
# wait_for WHAT COMMAND...: COMMAND succeeds within 300 s (polled every 20 ms)
wait_for()
{
    local what=$1
    shift
    for ((i = 0; i < 15000; i++)); do
        if "$@"; then
            return 0
        fi
        sleep 0.02
    done
    not_ok "timed out waiting for $what"
    return 1
}

# --- the recipe, from doc/command-line.md: sweep.sh (the job array's script) and the merge
awk '/`sweep.sh` holding:/ { f = 1; next } f && /^```/ { if (++k == 2) exit; next } f && k == 1' "$manual" \
    > "$tmp/sweep.sh.readme"
awk '/To put the 8 parts back/ { f = 1; next } f && /^```/ { if (++k == 2) exit; next } f && k == 1' "$manual" \
    > "$tmp/merge.sh"
grid_readme='--vary Omega=-2:2:401 --vary k2=0.1:1:100'
grid_small='--vary Omega=-2:2:5 --vary k2=0.1:1:3'
shard_opts='--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT -o part-$SLURM_ARRAY_TASK_ID.csv'
if ! grep -qF -- "$grid_readme" "$tmp/sweep.sh.readme" || ! grep -qF -- "$shard_opts" "$tmp/sweep.sh.readme" \
   || ! grep -q "^cmlab-cli sweep" "$tmp/sweep.sh.readme" || ! grep -q "^paste " "$tmp/merge.sh"; then
    not_ok "the Slurm recipe of doc/command-line.md is not where this test looks for it (\"sweep.sh holding:\", \"To put the 8 parts back\"): $(cat "$tmp/sweep.sh.readme" "$tmp/merge.sh")"
    finish
fi
sed "s/${grid_readme}/${grid_small}/" "$tmp/sweep.sh.readme" > "$tmp/sweep.sh"
ok "doc/command-line.md's sweep.sh and merge found"

# cmlab-cli as the script calls it; for shard 1 the same program with the hold preloaded
# (after AddressSanitizer's runtime, which must come first, in a sanitizer build)
mkdir -p "$tmp/bin" "$tmp/bin-held" "$tmp/hold" "$tmp/shared" "$tmp/single"
ln -s "$cli" "$tmp/bin/cmlab-cli"
asan_lib=$(ldd "$cli" 2>/dev/null | awk '/libasan/ { print $3; exit }')
cat > "$tmp/bin-held/cmlab-cli" <<EOF
#!/bin/sh
LD_PRELOAD="${asan_lib:+$asan_lib }$hold_lib\${LD_PRELOAD:+ \$LD_PRELOAD}" exec "$cli" "\$@"
EOF
chmod +x "$tmp/bin-held/cmlab-cli"
export SLURM_ARRAY_TASK_COUNT=8 SLURM_CPUS_PER_TASK=2

# --- the whole sweep, in one process (the reference): the script without --shard and -o
sed -e 's/--shard [^ ]* //' -e 's/-o part-[^ ]*\.csv/-o whole.csv/' "$tmp/sweep.sh" > "$tmp/single/whole.sh"
(cd "$tmp/single" && PATH="$tmp/bin:$PATH" timeout -s KILL 300 sh whole.sh 2> "$tmp/single/err")
status=$?
if [[ $status == 0 ]] && [[ $(grep -vc '^#' "$tmp/single/whole.csv") == 16 ]] \
   && grep -q '^# integrator: ' "$tmp/single/whole.csv"; then
    ok "the whole sweep in one process: its comment lines, the columns and 15 rows"
else
    not_ok "the whole sweep in one process: exit $status, $(head -c 600 "$tmp/single/err")"
    finish
fi

# shard K as an array task: in a PID namespace of its own, its PID 1000·K + 1 or so (dead
# in every other shard's namespace), in the shared folder
start_shard()
{
    local k=$1 bin=$2
    (cd "$tmp/shared" && SLURM_ARRAY_TASK_ID=$k PATH="$bin:$PATH" CMLAB_TEST_HOLD_NAME=part-1.csv \
        CMLAB_TEST_HOLD_DIR="$tmp/hold" exec timeout 600 unshare --pid --fork --kill-child --mount-proc sh -c \
        'echo "$1" > /proc/sys/kernel/ns_last_pid 2>/dev/null; sh ../sweep.sh & wait $!' sh $((1000 * k)) \
        2> "$tmp/err-$k") &
    pids[k]=$!
}
temporaries()
{
    compgen -G "$tmp/shared/.part-*.cmlab-tmp-*"
}

# --- shard 1 starts, computes its rows and is held before it renames its file
start_shard 1 "$tmp/bin-held"
shard1_gone()
{
    ! kill -0 "${pids[1]}" 2>/dev/null
}
shard1_held_or_gone()
{
    [[ -e $tmp/hold/held ]] || shard1_gone
}
if ! wait_for "shard 1 to reach its end" shard1_held_or_gone; then
    finish
fi
if shard1_gone; then
    wait "${pids[1]}"
    not_ok "shard 1 ended before it was held (exit $?): $(head -c 600 "$tmp/err-1")"
    finish
fi
tmp1=$(compgen -G "$tmp/shared/.part-1.csv.cmlab-tmp-*")
if [[ -n $tmp1 ]]; then
    ok "shard 1 held with its rows in its temporary $(basename "$tmp1")"
else
    not_ok "shard 1 held, but no temporary of part-1.csv in the folder (it holds: $(ls -A "$tmp/shared" | tr "\n" " "))"
fi

# --- shards 2 to 8 at the same time, each cleaning the folder as it starts
for k in 2 3 4 5 6 7 8; do
    start_shard $k "$tmp/bin"
done
for k in 2 3 4 5 6 7 8; do
    wait "${pids[k]}"
    status=$?
    if [[ $status == 0 ]] && [[ -f $tmp/shared/part-$k.csv ]]; then
        ok "shard $k/8 wrote part-$k.csv"
    else
        not_ok "shard $k/8: exit $status, $(head -c 600 "$tmp/err-$k")"
    fi
done
if [[ -n $tmp1 ]] && [[ -f $tmp1 ]]; then
    ok "shard 1's temporary is still there after the 7 others started, wrote and ended"
else
    not_ok "shard 1's temporary was removed by another shard (the folder holds: $(ls -A "$tmp/shared" | tr "\n" " "))"
fi

# --- shard 1 goes on and ends, long after the others
: > "$tmp/hold/go"
wait "${pids[1]}"
status=$?
if [[ $status == 0 ]] && [[ -f $tmp/shared/part-1.csv ]]; then
    ok "shard 1/8 wrote part-1.csv, after the others"
else
    not_ok "shard 1/8: exit $status, $(head -c 600 "$tmp/err-1")"
fi
if left=$(temporaries); then
    not_ok "temporaries left in the folder: $left"
else
    ok "no temporary left in the folder"
fi

# --- the manual's merge, and the whole sweep byte for byte
(cd "$tmp/shared" && sh ../merge.sh 2> "$tmp/err-merge")
if cmp -s "$tmp/shared/sweep.csv" "$tmp/single/whole.csv"; then
    ok "the merged parts are the whole sweep, byte for byte"
else
    not_ok "the merged parts differ from the whole sweep: $(diff "$tmp/shared/sweep.csv" "$tmp/single/whole.csv" | head -8) $(head -c 300 "$tmp/err-merge")"
fi
finish
