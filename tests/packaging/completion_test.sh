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
expect "memlens ex" "export"
expect "memlens export dir --sh" "--shard"
expect "memlens watch dir --js" "--json-lines"
expect "memlens summary dir --st" "--step --stitch"

# Every option the script offers for a subcommand is in that subcommand's part of --help (the
# lines from "memlens COMMAND" to the next command's), and every option listed there is offered.
help=$(memlens --help)
section_of() { awk -v c="memlens $1 " '$1 == "memlens" || $1 == "usage:" { inside = (index($0, c) > 0) } inside' <<<"$help"; }
for command in summary watch render diff advise replay export estimate; do
  section=$(section_of "$command")
  for option in $(complete_line "memlens $command x -"); do
    grep -qE -- "(^|[[ ])$option\b" <<<"$section" || { echo "FAIL: $command $option is offered but not in its --help"; failures=$((failures + 1)); }
  done
done
for command in summary watch render diff advise replay export estimate; do
  offered=" $(complete_line "memlens $command x -") "
  section=$(section_of "$command")
  for option in $(grep -oE -- '(^|[[ ])--?[a-z][a-z-]*' <<<"$section" | sed 's/^[[ ]//' | sort -u); do
    [[ $offered == *" $option "* ]] || { echo "FAIL: --help lists $command $option, which completion does not offer"; failures=$((failures + 1)); }
  done
done
[ "$failures" = 0 ] && echo "completion: all cases pass"
exit "$failures"
