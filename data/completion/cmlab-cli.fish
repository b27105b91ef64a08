# fish completion for cmlab-cli: the commands, each command's options (from `cmlab-cli
# COMMAND --help`), built-in model names and .cml files, integrator names, and the names of
# the model on the line (`cmlab-cli list …`), as the bash completion does.

function __cmlab_cli_model
    # the first word after the command that is not an option or an option's value
    set -l words (commandline -opc)
    set -l skip 0
    for w in $words[3..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $w
            case '--*=*'
            case --reference --no-equal-scales --dark --help -h
            case '-*'
                set skip 1
            case '*'
                echo $w
                return
        end
    end
end

# true while no model has been given yet (and the word is not an option)
function __cmlab_cli_needs_model
    set -l words (commandline -opc)
    not __fish_use_subcommand
    or return 1
    if test "$words[2]" = lesson
        return 1
    end
    if test "$words[2]" = list
        # list parameters|state|observables MODEL
        test (count $words) -eq 3; and contains -- $words[3] parameters state observables
        return
    end
    test -z (__cmlab_cli_model | string collect)
    and not string match -q -- '-*' (commandline -ct)
end

# lesson's first word, and then the lesson file
function __cmlab_cli_lesson_at -a n
    set -l words (commandline -opc)
    test (count $words) -eq $n; and test "$words[2]" = lesson
    and not string match -q -- '-*' (commandline -ct)
end

# list's first word
function __cmlab_cli_list_kind
    set -l words (commandline -opc)
    test (count $words) -eq 2; and test "$words[2]" = list
end

# the cmlab-cli being completed, as typed (a path in a build tree works too)
function __cmlab_cli_run
    set -l cli (commandline -opc)[1]
    $cli $argv 2>/dev/null
end

function __cmlab_cli_names -a what
    set -l model (__cmlab_cli_model)
    test -n "$model"; and __cmlab_cli_run list $what $model
end

function __cmlab_cli_options
    set -l words (commandline -opc)
    $words[1] $words[2] --help 2>&1 | string match -r -a -- '--[a-z][a-z-]*' | sort -u
end

set -l cli cmlab-cli
complete -c $cli -f
complete -c $cli -n __fish_use_subcommand -a '(__cmlab_cli_run list commands)'
complete -c $cli -n 'not __fish_use_subcommand; and string match -q -- "-*" (commandline -ct)' -a '(__cmlab_cli_options)'
complete -c $cli -n __cmlab_cli_needs_model \
    -a '(__cmlab_cli_run list model-names; __fish_complete_suffix .cml)'
complete -c $cli -n '__cmlab_cli_lesson_at 2' -a 'check show export handout'
complete -c $cli -n '__cmlab_cli_lesson_at 3' -a '(__fish_complete_suffix .cmllesson | string match -r -- "^.*\\.cmllesson\$|^.*/\$")'
complete -c $cli -n __cmlab_cli_list_kind -a 'models model-names commands integrators parameters state observables'
complete -c $cli -l integrator -x -a '(__cmlab_cli_run list integrators)'
complete -c $cli -l set -x -a '(__cmlab_cli_names parameters | string replace -r "\$" "=")'
complete -c $cli -l vary -x -a '(__cmlab_cli_names parameters | string replace -r "\$" "=")'
complete -c $cli -l init -x -a '(__cmlab_cli_names state | string replace -r "\$" "=")'
complete -c $cli -l target -x -a '(__cmlab_cli_names state | string replace -r "\$" "=")'
complete -c $cli -l from -x -a '(__cmlab_cli_names state | string replace -r "\$" "=")'
for opt in columns measure y x with-plot
    complete -c $cli -l $opt -x -a '(__cmlab_cli_names observables)'
end
complete -c $cli -n '__fish_seen_subcommand_from info' -l format -x -a 'text latex sympy json'
complete -c $cli -n 'not __fish_seen_subcommand_from info' -l format -x -a 'csv json npy'
complete -c $cli -l frame -x -a 'lab table'
complete -c $cli -l direction -x -a 'up down both'
complete -c $cli -l as -x -a vakonomic
complete -c $cli -l session -r -a '(__fish_complete_suffix .cmlsession)'
complete -c $cli -s o -l output -r -F
