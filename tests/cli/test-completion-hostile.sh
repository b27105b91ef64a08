#!/bin/bash
# test-completion-hostile.sh — the bash completion of cmlab-cli (data/completion/cmlab-cli)
# offers model names that are hostile shell text exactly as they are and never runs or
# expands them: a models folder ($CMLAB_MODELS_DIR: a checked-out branch, a shared group
# folder) holds files named $(touch pwned).cml, `touch pwned`.cml, ${PATH}.cml, it's.cml,
# $((6*7)).cml, a b.cml, *.cml and one with a newline.  The completion is run as
# bash-completion runs it (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT set, the function
# called), once with bash-completion's helpers (when installed) and once without them.
# compopt is replaced by a function that notes its options: readline quotes what it
# inserts (\$\(touch\ pwned\).cml) only under -o filenames.  Arguments: the completion
# script and the built cmlab-cli.
set -u
script=$(realpath "$1")
cli=$(realpath "$2")
lib=/usr/share/bash-completion/bash_completion

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
models=$dir/models
work=$dir/work
mkdir "$models" "$work"
small='[model]
name = small
title = A small model

[parameters]
k = 1 | 0 .. 2

[algebroid]
base = x
fibre = u

[anchor]
e1 = x: 1

[dynamics]
lagrangian = u^2/2 - k*x^2/2
'
names=('$(touch pwned)' '`touch pwned`' '${PATH}' "it's" '$((6*7))' 'a b' '*' 'plain' '-x')
for name in "${names[@]}" $'new\nline'; do
    printf '%s' "$small" >"$models/$name.cml"
done
# without a quote or a space, which make compgen -W fail before it runs anything
runs=$dir/runs
mkdir "$runs"
for name in '$(>pwned)' '`>pwned`' '${PATH}'; do
    printf '%s' "$small" >"$runs/$name.cml"
done
# a file of the working folder is offered as it is named too
here='x$(>pwned)`>pwned`.cml'
printf '%s' "$small" >"$work/$here"

# what each run prints: TAP lines, then "fail" if any failed
run()
{
    local with_lib=$1
    (
        cd "$work" || exit 1
        export CMLAB_MODELS_DIR=$models
        if [[ $with_lib == 1 ]]; then
            source "$lib"
        fi
        source "$script"
        comp_opts=""
        compopt() { comp_opts+=" $*"; }
        fail=0
        n=0
        ok()
        {
            n=$((n + 1))
            if [[ $1 == 0 ]]; then echo "ok - $2"; else echo "not ok - $2"; fail=1; fi
        }
        # complete WORDS...: COMPREPLY for the line, the last word under the cursor
        complete_words()
        {
            COMP_WORDS=("$cli" "$@")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            comp_opts=""
            _cmlab_cli 2>/dev/null
        }
        # same WORD...: COMPREPLY holds exactly the words given (in any order)
        same()
        {
            local got want
            got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort)
            want=$(printf '%s\n' "$@" | LC_ALL=C sort)
            [[ $got == "$want" ]] || { printf '# got:\n%s\n# expected:\n%s\n' "$got" "$want" | sed '2,$s/^/#   /'; return 1; }
        }
        label="(bash-completion ${with_lib/1/loaded})"
        label=${label/0)/not loaded)}

        complete_words simulate ""
        same "${names[@]}" "$here"
        ok $? "every model name offered as it is, one word each, the newline's left out $label"
        [[ " $comp_opts " == *" -o filenames "* ]]
        ok $? "readline quotes the names it inserts (-o filenames) $label"

        complete_words simulate '\$'
        same '$(touch pwned)' '${PATH}' '$((6*7))'
        ok $? "a prefix chooses among them literally $label"
        complete_words sweep "it"
        same "it's"
        ok $? "a quote in a name stays $label"
        complete_words list parameters '\$'
        same '$(touch pwned)' '${PATH}' '$((6*7))'
        ok $? "list parameters offers the same names $label"
        complete_words simulate "'it"
        same "it's"
        ok $? "a word opened with a quote matches the names it starts $label"

        CMLAB_MODELS_DIR=$runs complete_words simulate ""
        same '$(>pwned)' '`>pwned`' '${PATH}' "$here"
        ok $? "\$(…), \`…\` and \${…} offered as they are $label"
        [[ ! -e pwned && ! -e $models/pwned && ! -e $runs/pwned ]]
        ok $? "no name was run $label"
        # the model \$(touch pwned) on the line, as readline wrote it: its parameters
        complete_words simulate '\$\(touch\ pwned\)' --set ""
        same "k="
        ok $? "the parameters of a model named as readline quoted it $label"
        complete_words simulate "'it'\\''s'" --set ""
        same "k="
        ok $? "the parameters of a model named in quotes $label"
        rm -f pwned
        complete_words simulate '$(touch pwned)' --set ""
        [[ ! -e pwned ]]
        ok $? "a hostile model on the line is named, not run $label"
        [[ $fail == 0 ]] || echo fail
        echo "count $n"
    )
}

total=0
fail=0
for with_lib in 1 0; do
    if [[ $with_lib == 1 && ! -r $lib ]]; then
        echo "ok - # SKIP bash-completion is not installed: only the run without it"
        total=$((total + 1))
        continue
    fi
    out=$(run $with_lib)
    printf '%s\n' "$out" | grep -v '^fail$\|^count '
    [[ $out == *$'\nfail'* || $out == fail* ]] && fail=1
    count=$(printf '%s\n' "$out" | sed -n 's/^count //p')
    total=$((total + ${count:-0}))
    [[ -n $count ]] || { echo "not ok - the run $with_lib ended early"; fail=1; total=$((total + 1)); }
done
echo "1..$total"
exit $fail
