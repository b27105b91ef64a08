# completion-cases.sh — what the fish and the zsh completion of cmlab-cli must offer, the
# same for both: sourced by test-completion-fish.sh and test-completion-zsh.sh, each of
# which first defines `complete_line LINE` (the candidates for LINE, one a line, in fish's
# order) and runs this in a folder holding mine.cml and other.txt.  Prints TAP and sets
# $fail.
n=0
fail=0
# check EXPECTED LINE: completing LINE (cmlab-cli found on PATH) offers exactly EXPECTED
check()
{
    local expected=$1 line=$2 got
    got=$(complete_line "$line" | tr '\n' ' ')
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
check "x1= x2= x3=" "cmlab-cli explore martinet --t-end 1 --covectors 8 --from x"
check "parameters" "cmlab-cli list par"
check "lambda_roll_x lambda_roll_y" "cmlab-cli simulate rolling-ball --columns lam"
touch my.cmllesson
check "check" "cmlab-cli lesson ch"
check "my.cmllesson" "cmlab-cli lesson show m"
check "--answers" "cmlab-cli lesson show my.cmllesson --ans"
# a models folder holding names that are shell text or hold a colon: offered whole, and
# nothing in them is run
hostile=$(mktemp -d)
for m in 'c:d' '$(>pwned)' '`>pwned`'; do
    printf '[model]\nname = m\ntitle = t\n\n[algebroid]\nbase = x\nfibre = u\n\n[anchor]\ne1 = x: 1\n\n[dynamics]\nlagrangian = u^2/2\n' >"$hostile/$m.cml"
done
saved_models=${CMLAB_MODELS_DIR-}
export CMLAB_MODELS_DIR=$hostile
check "c:d" "cmlab-cli simulate c"
check '$(>pwned)' 'cmlab-cli simulate \$'
n=$((n + 1))
if [[ ! -e pwned && ! -e $hostile/pwned ]]; then echo "ok $n - no model name was run"; else echo "not ok $n - a model name was run"; fail=1; fi
export CMLAB_MODELS_DIR=$saved_models
rm -rf "$hostile"
echo "1..$n"
