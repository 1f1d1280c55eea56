#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The bash completion (packaging/bash-completion/rocectl) against rocectl itself: the same
# commands as `rocectl --help`, for each command the same options as `rocectl CMD --help`, and
# what it completes where an operator presses Tab.
set -uo pipefail
completion=$1
rocectl=$2
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# shellcheck source=/dev/null
source "$completion"

complete_line() {  # the words of a command line, the last one being completed
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _rocectl
    echo "${COMPREPLY[*]}"
}

help_commands=$("$rocectl" --help | sed -n '/^commands:/,/^$/p' | awk '/^  [a-z]/ {print $1}' | sort | tr '\n' ' ')
ours=$(echo $_rocectl_commands | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$help_commands" = "$ours" ] || fail "commands: rocectl --help has '$help_commands', the completion '$ours'"

for command in $_rocectl_commands; do
    # Every command takes --help, though a short help need not list it.
    help_options=$({ "$rocectl" "$command" --help | grep -oE -- '--[a-z][a-z-]*'; echo --help; } |
        sort -u | tr '\n' ' ')
    completed=$(echo $(_rocectl_options "$command") | tr ' ' '\n' | sort -u | tr '\n' ' ')
    [ "$help_options" = "$completed" ] ||
        fail "$command: rocectl $command --help has '$help_options', the completion '$completed'"
done

[ "$(complete_line rocectl pl)" = "plan" ] || fail "rocectl pl<Tab>: '$(complete_line rocectl pl)'"
[ "$(complete_line rocectl --sim /tmp ch)" = "check" ] || fail "--sim DIR ch<Tab>"
[ "$(complete_line rocectl nccl-env --format e)" = "env" ] || fail "--format e<Tab>"
[ "$(complete_line rocectl apply --d)" = "--diff --direct" ] ||
    fail "apply --d<Tab>: '$(complete_line rocectl apply --d)'"
[ "$(complete_line rocectl check --v)" = "--verbose" ] || fail "check --v<Tab>"

exit $failed
