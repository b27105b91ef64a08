#!/usr/bin/env bash
# A lesson presented from the keyboard, as a teacher with a presenter's remote does: the
# turning-table lesson opened on the command line in presentation mode shows its first
# step (the still table); Page Down goes to the second (the turning table), whose question
# waits with the motion paused; the choice's number key gives the class's answer and the
# motion plays; faster (+) it reaches the prediction's time and the outcome shows, right;
# Page Up goes back to the still table, from its own start.  A students' copy of the
# singular-Lagrangian lesson: its step with a hidden mass plays the recorded motion when
# Space is pressed.
. "$(dirname "$0")/e2e-lib.sh"

lesson=$(cd "$(dirname "$0")/../../lessons" && pwd)/turning-table.cmllesson
[ -r "$lesson" ] || { echo "Bail out! $lesson is missing"; exit 1; }

e2e_screen 1280x720
e2e_start --lesson "$lesson" --presentation --window-size 1280x720
e2e_ok $? "the window opens the lesson"
e2e_wait "s['lesson'] is not None and s['lesson']['step'] == 1 and s['lesson']['steps'] == 3 and s['model'] == 'rolling-ball'"
e2e_ok $? "it shows step 1 of 3 on the rolling ball"
e2e_wait "s['params']['Omega'] == 0 and s['lesson']['prediction'] == 'none' and s['t'] > 0"
e2e_ok $? "step 1: the table is still (Ω = 0) and the ball rolls at once"
e2e_wait "s['outside'] == [] and all(c['tooltip'] for c in s['cut'])"
e2e_ok $? "the caption's band fits the window: nothing reaches past it or is cut short"
e2e_picture lesson-step-1

e2e_key Next
e2e_wait "s['lesson']['step'] == 2 and s['lesson']['waiting'] == 0"
e2e_ok $? "Page Down goes to step 2"
e2e_wait "s['params']['Omega'] == 1 and s['lesson']['prediction'] == 'asked' and s['state'] == 'paused' and s['t'] == 0"
e2e_ok $? "step 2: the table turns (Ω = 1); the question waits with the motion paused at t = 0"
e2e_picture lesson-step-2

e2e_key 2
e2e_wait "s['lesson']['prediction'] in ('answered', 'shown') and s['t'] > 0"
e2e_ok $? "the key 2 gives the class's answer and the motion plays"
# ×1 → ×100: the prediction's time (t = 50) comes within a second or so
for i in 1 2 3 4 5 6; do e2e_key plus; done
e2e_wait "s['speed'] == 100"
e2e_ok $? "+ makes it faster"
E2E_TRIES=6000 e2e_wait "s['lesson']['prediction'] == 'shown'"
e2e_ok $? "the outcome shows when the run reaches the prediction's time"
e2e_wait "s['lesson']['right'] is True and abs(s['lesson']['value'] + 0.75) <= 1.76 and s['t'] >= 50"
e2e_ok $? "the class was right: the ball stays within 1.76 m of x = −0.75 m at t = 50"
e2e_picture lesson-outcome

e2e_key Prior
e2e_wait "s['lesson']['step'] == 1 and s['lesson']['waiting'] == 0 and s['params']['Omega'] == 0 and s['lesson']['prediction'] == 'none'"
e2e_ok $? "Page Up goes back to step 1, the still table"

e2e_quit
e2e_ok $? "Ctrl+Q ends the program"

# ---- a students' copy: the step whose hidden mass it leaves out plays its recording ----
src=$(cd "$(dirname "$0")/../../lessons" && pwd)/singular-lagrangian.cmllesson
"$CMLAB_CLI" lesson export "$src" --student -o "$e2e_tmp/copy" >/dev/null
e2e_ok $? "cmlab-cli exports a students' copy"
e2e_start --lesson "$e2e_tmp/copy/singular-lagrangian.cmllesson" --step 4 --presentation --window-size 1280x720
e2e_ok $? "the window opens the copy at its step 4"
e2e_wait "s['lesson'] is not None and s['lesson']['step'] == 4 and s['lesson']['waiting'] == 0 and s['lesson']['recorded'] and s['lesson']['prediction'] == 'asked' and s['state'] == 'paused' and s['t'] == 0"
e2e_ok $? "step 4 plays from its recording; the question waits with the motion paused at t = 0"
e2e_key space
E2E_TRIES=6000 e2e_wait "s['state'] == 'running' and s['t'] > 0.5"
e2e_ok $? "Space plays the recorded motion"
e2e_picture lesson-recorded
e2e_key 2
e2e_wait "s['lesson']['prediction'] == 'shown' and s['lesson']['value'] is not None and s['lesson']['right'] is None"
e2e_ok $? "the class's answer: the outcome from the recording, without a verdict (the copy holds no answers)"
e2e_quit
e2e_ok $? "Ctrl+Q ends the program"
e2e_done
