#!/bin/bash
# test-manual.sh — the manual pages say what the programs do: every command of cmlab-cli
# has its synopsis in cmlab-cli(1) and every option its `--help` shows is described there;
# every option of the window (cmlab --help-all) is in cmlab(1).  Arguments: the source
# folder of the pages (doc/man), the built cmlab-cli and, if built, cmlab.
set -u
man=$1
cli=$2
app=${3:-}
n=0
fail=0
ok()
{
    n=$((n + 1))
    if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
has()
{
    grep -qF -- "$2" "$1"
}

for command in $("$cli" list commands); do
    has "$man/cmlab-cli.1.md" "**cmlab-cli $command**"
    ok $? "cmlab-cli(1) has the synopsis of $command"
    for option in $("$cli" "$command" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        has "$man/cmlab-cli.1.md" "**\\$option**"
        ok $? "cmlab-cli(1) describes $command $option"
    done
done
for integrator in $("$cli" list integrators); do
    has "$man/cmlab-cli.1.md" "**$integrator**"
    ok $? "cmlab-cli(1) names the integrator $integrator"
done
if [[ -n $app ]]; then
    for option in $(env -u DISPLAY -u WAYLAND_DISPLAY "$app" --help-all 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        case $option in --gapplication-service | --help-gapplication) continue ;; esac
        has "$man/cmlab.1.md" "**\\$option**"
        ok $? "cmlab(1) describes $option"
    done
fi
echo "1..$n"
exit $fail
