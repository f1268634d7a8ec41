# Sourced by every hook of this test charm. Records each hook and what the tools it calls print:
#   <unit dir>/hook-log        one line per hook: "hook=<name> unit=<unit> at=<epoch ms>"
#   <unit dir>/tools-<hook>    for each tool call: "== <command line> rc=<exit code>", then its
#                              stdout, then its stderr
set -u
UNIT_DIR="$(dirname "$CHARM_DIR")"
HOOK_LOG="$UNIT_DIR/hook-log"
RECORD="$UNIT_DIR/tools-$JUJU_HOOK_NAME"

log_hook() {
  echo "hook=$JUJU_HOOK_NAME unit=$JUJU_UNIT_NAME at=$(date +%s%3N) $*" >> "$HOOK_LOG"
}

# record <tool> [args...]: runs the tool and appends its exit code and output to the hook's record.
record() {
  local out err rc
  out="$(mktemp)" err="$(mktemp)"
  "$@" > "$out" 2> "$err"
  rc=$?
  { echo "== $* rc=$rc"; cat "$out" "$err"; } >> "$RECORD"
  rm -f "$out" "$err"
}
