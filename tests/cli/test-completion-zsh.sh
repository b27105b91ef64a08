#!/bin/bash
# test-completion-zsh.sh — the zsh completion of cmlab-cli (data/completion/_cmlab-cli)
# against the built cmlab-cli: commands, options, models, integrators and the names of the
# model on the line.  Arguments: the completion script and the built cmlab-cli.
#
# zsh completes only in its line editor, on a terminal: each line is typed into an
# interactive `zsh -f` on a pseudo-terminal (the zsh/zpty module), with compinit loading the
# completion from the script's folder, and list-choices (bound to ^T) lists the candidates,
# which are read back from what the terminal shows.
set -u
script=$(realpath "$1")
cli=$(realpath "$2")
if ! command -v zsh >/dev/null; then
    echo "1..0 # SKIP zsh is not installed"
    exit 0
fi
here=$(dirname "$(realpath "$0")")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
touch mine.cml other.txt

# run by zsh: types the line $2 into a zsh whose completion functions are first looked for
# in the folder $1, lists the candidates, and prints them one a line
lister=$(cat <<'EOF'
zmodload zsh/zpty || exit 1
zpty z zsh -f -i || exit 1
# a prompt to wait for, nothing drawn before it; every candidate listed, in one group,
# without its description, however many there are
zpty -w z "PS1='<P>' RPS1=; unsetopt prompt_cr prompt_sp; unset zle_bracketed_paste"
zpty -w z "fpath=(${(q)1} \$fpath); autoload -U compinit && compinit -u -D"
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' verbose false"
zpty -w z "LISTMAX=100000; bindkey '^T' list-choices"
# READY42 and END42 are shown by the commands run, not by the lines typed
zpty -w z 'print READY$((6*7))'
zpty -r -m z out '*READY42*<P>' || exit 1
# the line, ^T (list), ^U (the line erased), then a command that shows it has all been done
zpty -w -n z "$2"$'\x14\x15''print END$((6*7))'$'\n'
zpty -r -m z out '*END42*' || exit 1
zpty -d z
# the list is below the line typed, before the cursor goes back up to it: names in columns
out=${out%END42*}
out=${out#*$'\n'}
out=${out#$'\e[J'}
out=${out%%$'\e'*}
out=${out//$'\r'/}
print -rl -- ${=out}
EOF
)

# the candidates zsh lists for the line $1, sorted as fish sorts them (zsh lays them out in
# columns); a completion that hangs gives nothing — after 5 min, a bound no busy machine
# reaches (at load 16 on 2 processors a zsh with compinit took over 10 s to list)
complete_line()
{
    PATH="$(dirname "$cli"):$PATH" TERM=xterm timeout 300 zsh -f -c "$lister" zsh "$(dirname "$script")" "$1" 2>&1 |
        LC_ALL=C sort -f
}
source "$here/completion-cases.sh"
exit $fail
