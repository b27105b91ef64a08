#!/bin/bash
# test-completion-fish.sh — the fish completion of cmlab-cli (data/completion/cmlab-cli.fish)
# against the built cmlab-cli: commands, options, models, integrators and the names of the
# model on the line.  Arguments: the completion script and the built cmlab-cli.
set -u
script=$(realpath "$1")
cli=$(realpath "$2")
if ! command -v fish >/dev/null; then
    echo "1..0 # SKIP fish is not installed"
    exit 0
fi
n=0
fail=0
dir=$(mktemp -d)
cd "$dir" || exit 1
touch mine.cml other.txt
# check EXPECTED LINE: completing LINE (cmlab-cli found on PATH) offers exactly EXPECTED
check()
{
    local expected=$1 line=$2 got
    got=$(PATH="$(dirname "$cli"):$PATH" fish -c "source '$script'; complete -C'$line'" 2>&1 | cut -f1 | tr '\n' ' ')
    got=${got% }
    n=$((n + 1))
    if [[ $got == "$expected" ]]; then
        echo "ok $n - $line"
    else
        echo "not ok $n - $line: expected [$expected], got [$got]"
        fail=1
    fi
}
check "simulate" "cmlab-cli sim"
check "rolling-ball rolling-ball-varying" "cmlab-cli simulate roll"
check "mine.cml" "cmlab-cli simulate mi"
check "k2= m= Omega= r=" "cmlab-cli simulate rolling-ball --set "
check "variational variational4" "cmlab-cli simulate rolling-ball --integrator var"
check "--integrator" "cmlab-cli simulate rolling-ball --integ"
check "x1= x2= x3=" "cmlab-cli shoot martinet --t-end 1 --target x"
check "parameters" "cmlab-cli list par"
check "lambda_roll_x lambda_roll_y" "cmlab-cli simulate rolling-ball --columns lam"
rm -rf "$dir"
echo "1..$n"
exit $fail
