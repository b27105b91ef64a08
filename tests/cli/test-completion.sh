#!/bin/bash
# test-completion.sh — the bash completion of cmlab-cli (data/completion/cmlab-cli), run
# as bash-completion runs it, against the built cmlab-cli: commands, options, models,
# integrators and the names of the model on the line.  Arguments: the completion script
# and the built cmlab-cli.
set -u
script=$(realpath "$1")
cli=$(realpath "$2")
lib=/usr/share/bash-completion/bash_completion
if [[ ! -r $lib ]]; then
    echo "1..0 # SKIP bash-completion is not installed"
    exit 0
fi
source "$lib"
source "$script"

n=0
fail=0
# check EXPECTED WORDS...: completing WORDS (the last is the word under the cursor) offers
# exactly EXPECTED (space-separated, in order)
check()
{
    local expected=$1
    shift
    COMP_WORDS=("$cli" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _cmlab_cli 2>/dev/null
    local got="${COMPREPLY[*]}"
    n=$((n + 1))
    if [[ $got == "$expected" ]]; then
        echo "ok $n - $*"
    else
        echo "not ok $n - $*: expected [$expected], got [$got]"
        fail=1
    fi
}

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
touch mine.cml other.txt
check "simulate sweep shoot" s
check "$("$cli" list commands | tr "\n" " ")--help" ""
check "rolling-ball rolling-ball-varying" simulate roll
check "mine.cml" simulate mi
check "m= r= k2= Omega=" simulate rolling-ball --set ""
check "Omega=" sweep rolling-ball --t-end 10 --vary O
check "x= y= u= v= w1= w2= w3= q0= q1= q2= q3= alpha=" simulate rolling-ball --t-end 10 --init ""
check "x,lambda_roll_x x,lambda_roll_y" simulate rolling-ball --columns x,lam
check "variational variational4" simulate rolling-ball --integrator var
check "--integrator" simulate rolling-ball --integ
check "x1= x2= x3=" shoot martinet --t-end 1 --target x
check "x1= x2= x3=" explore martinet --t-end 1 --covectors 8 --from x
check "x1=0,x1= x1=0,x2= x1=0,x3=" explore martinet --t-end 1 --from x1=0,x
check "csv json npy" simulate rolling-ball --format ""
check "text latex sympy json" info rolling-ball --format ""
check "parameters" list par
check "plate-ball" list state pl
touch my.cmllesson
check "check" lesson ch
check "my.cmllesson" lesson show m
check "--answers" lesson show my.cmllesson --ans
echo "1..$n"
exit $fail
