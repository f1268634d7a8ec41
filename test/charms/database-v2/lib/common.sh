# Sourced by every hook of this test charm. Logs each hook's name and environment, and what the
# hook tools returned, so tests can assert order and content:
#   <unit dir>/hook-log       one line per hook: "hook=<name> unit=<unit> rel=<id> remote=<unit> ..."
#   <unit dir>/env-<hook>     the hook's CHARM_DIR and JUJU_* environment
# Gates, files a test creates in <machine dir>/gates/ (or the unit dir):
#   fail-<hook> / fail-<unit>-<hook>   the hook exits 1 (after doing its relation-set)
#   hang-<hook> / hang-<unit>-<hook>   the hook waits while the file exists (and says so in hanging-<unit>-<hook>)
set -u
UNIT_DIR="$(dirname "$CHARM_DIR")"
GATES="$UNIT_DIR/../../gates"
UNIT_DASH="${JUJU_UNIT_NAME/\//-}"
HOOK_LOG="$UNIT_DIR/hook-log"

log_hook() {
  echo "hook=$JUJU_HOOK_NAME unit=$JUJU_UNIT_NAME rel=${JUJU_RELATION_ID:-} remote=${JUJU_REMOTE_UNIT:-} $*" >> "$HOOK_LOG"
  env | grep -E '^(CHARM_DIR|PATH|JUJU_[A-Z_]+)=' | sort > "$UNIT_DIR/env-$JUJU_HOOK_NAME"
}

gated() {
  local kind="$1"
  for f in "$GATES/$kind-$UNIT_DASH-$JUJU_HOOK_NAME" "$GATES/$kind-$JUJU_HOOK_NAME" "$UNIT_DIR/$kind-$JUJU_HOOK_NAME"; do
    [ -e "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}

wait_if_gated() {
  local gate
  if gate=$(gated hang); then
    mkdir -p "$GATES"
    touch "$GATES/hanging-$UNIT_DASH-$JUJU_HOOK_NAME"
    while [ -e "$gate" ]; do sleep 0.1; done
  fi
}

fail_if_gated() {
  local gate
  if gate=$(gated fail); then
    echo "failing $JUJU_HOOK_NAME as $gate asks" >&2
    log_hook "failed=yes"
    exit 1
  fi
}
