# Sourced by every hook of this test charm. Records each hook and what the storage tools print,
# called as the ops framework calls them (ops/hookcmds/_storage.py: storage-list <name>
# --format=json, storage-get -s <id> location --format=json, storage-get --format=json):
#   <unit dir>/hook-log        one line per hook, when it ends: "hook=<name> storage=<JUJU_STORAGE_ID> location=<JUJU_STORAGE_LOCATION>"
#   <unit dir>/tools-<hook>    for each tool call: "== <command line> rc=<exit code>", then its
#                              stdout, then its stderr
set -u
UNIT_DIR="$(dirname "$CHARM_DIR")"
HOOK_LOG="$UNIT_DIR/hook-log"
RECORD="$UNIT_DIR/tools-$JUJU_HOOK_NAME"

log_hook() {
  echo "hook=$JUJU_HOOK_NAME storage=${JUJU_STORAGE_ID:-} location=${JUJU_STORAGE_LOCATION:-} kind=${JUJU_STORAGE_KIND:-}" >> "$HOOK_LOG"
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

# Every attached instance of a storage name, as ops's Model.storages[name] reads them, with its location.
record_storage() {
  local name="$1" id
  record storage-list "$name" --format=json
  for id in $(storage-list "$name"); do record storage-get -s "$id" location --format=json; done
}
