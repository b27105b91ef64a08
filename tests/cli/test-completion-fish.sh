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
here=$(dirname "$(realpath "$0")")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
touch mine.cml other.txt
# the candidates fish offers for the line $1
complete_line()
{
    PATH="$(dirname "$cli"):$PATH" fish -c "source '$script'; complete -C'$1'" 2>&1 | cut -f1
}
source "$here/completion-cases.sh"
exit $fail
