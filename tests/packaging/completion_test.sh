#!/usr/bin/env bash
# The bash completion against the binary it completes: subcommands, options per subcommand,
# the names --view, --model and --gpu take, and every option it offers is one --help names.
# Usage: completion_test.sh SCRIPT BINDIR
set -uo pipefail
script=$1
export PATH=$2:$PATH
source /usr/share/bash-completion/bash_completion || { echo "bash-completion is not installed"; exit 1; }
source "$script"
cd "$(mktemp -d)" || exit 1 # no files around to complete
failures=0
complete_line() {
  COMP_LINE=$1
  COMP_POINT=${#COMP_LINE}
  read -r -a COMP_WORDS <<<"$COMP_LINE"
  [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _memlens
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {
  local got
  got=$(complete_line "$1")
  if [ "$got" != "$2" ]; then
    echo "FAIL: '$1' completes to '$got', expected '$2'"
    failures=$((failures + 1))
  fi
}
expect "memlens re" "render replay"
expect "memlens render x.pickle --view ti" "timeline"
expect "memlens advise x.pickle --so" "--sort"
expect "memlens advise x.pickle --sort " "effort saves"
expect "memlens estimate --model llama-3-" "llama-3-70b llama-3-8b"
expect "memlens replay x.pickle --gpu h100" "h100-80 h100-pcie-80"
expect "memlens diff a b --fail-if-p" "--fail-if-peak-grows"
expect "memlens wa" "watch"
expect "memlens watch dir --js" "--json-lines"
expect "memlens summary dir --st" "--step --stitch"

# Every option the script offers for a subcommand is in --help.
help=$(memlens --help)
for command in summary watch render diff advise replay estimate; do
  for option in $(complete_line "memlens $command x --"); do
    grep -q -- "$option\b" <<<"$help" || { echo "FAIL: $command $option is offered but not in --help"; failures=$((failures + 1)); }
  done
done
[ "$failures" = 0 ] && echo "completion: all cases pass"
exit "$failures"
