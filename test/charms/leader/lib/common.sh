# Sourced by every hook of this test charm. Each hook appends one line to <unit dir>/hook-log:
#   hook=<name> unit=<unit> leader=<is-leader> json=<is-leader --format=json> settings=<leader-get --format=json> ...
# leader-elected and config-changed: the leader shares its name and the configured greeting with
# leader-set; a non-leader's attempt is logged as refused=<the tool's stderr>.
set -u
UNIT_DIR="$(dirname "$CHARM_DIR")"
HOOK_LOG="$UNIT_DIR/hook-log"

log_hook() {
  echo "hook=$JUJU_HOOK_NAME unit=$JUJU_UNIT_NAME leader=$(is-leader) json=$(is-leader --format=json) settings=$(leader-get --format=json) rel=${JUJU_RELATION_ID:-} remote-unit=${JUJU_REMOTE_UNIT:-} remote-app=${JUJU_REMOTE_APP:-} $*" >> "$HOOK_LOG"
}

share_greeting() {
  local out
  if out=$(leader-set leader="$JUJU_UNIT_NAME" greeting="$(config-get greeting)" 2>&1); then
    log_hook "shared=yes"
  else
    log_hook "refused=$out"
  fi
}

# Relation hooks: the leader puts its application's name in its bag (relation-set --app); the
# others' attempts are refused. -changed logs both bags as relation-get --app reads them.
APP="${JUJU_UNIT_NAME%/*}"

share_app_data() {
  local out
  if out=$(relation-set --app from="$APP" 2>&1); then
    log_hook "app-set=yes"
  else
    log_hook "app-refused=$out"
  fi
}

log_app_data() {
  log_hook "remote-bag=$(relation-get --app --format=json 2>&1) own-bag=$(relation-get --app --format=json - "$APP" 2>&1)"
}
