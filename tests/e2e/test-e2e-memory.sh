#!/usr/bin/env bash
# What the window keeps of a run is bounded: the rolling ball at ×100 (the speed menu's
# fastest, set with the + key) fills the plots' record, and they then hold the newest
# 65 536 samples (at most an eighth more between two trims), however long it plays.
# (tools/soak-window measures the resident memory over ten minutes and an hour.)
. "$(dirname "$0")/e2e-lib.sh"

keep=65536
e2e_screen 1280x720
e2e_start --model rolling-ball --play
e2e_ok $? "the window shows"
for _ in 1 2 3 4 5 6; do e2e_key plus; done
e2e_wait "s['speed'] == 100 and s['state'] == 'running'"
e2e_ok $? "six presses of + give ×100"

# the record fills (a slow machine takes longer: up to ten minutes)
full=1
for _ in $(seq 1 600); do
  n=$(e2e_query "s['time_plot']['samples']") || break
  [ "$n" -ge $keep ] && { full=0; break; }
  sleep 1
done
e2e_ok $full "the plots' record fills at ×100 (${n:-?} samples)"

# and from then on it holds no more than the bound, while the run goes on
t0=$(e2e_query "s['t']")
over=0; most=0
for _ in $(seq 1 20); do
  n=$(e2e_query "s['time_plot']['samples']") || { over=1; break; }
  [ "$n" -gt "$most" ] && most=$n
  [ "$n" -gt $((keep + keep / 8)) ] && over=1
done
e2e_wait "s['t'] > $t0 + 10"
e2e_ok $? "the run goes on"
n=$(e2e_query "s['time_plot']['samples']")
[ "$n" -gt $((keep + keep / 8)) ] && over=1
e2e_ok $over "the plots keep at most $((keep + keep / 8)) samples (the most seen: $most)"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
