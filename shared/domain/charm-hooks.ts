// The hooks a charm's metadata declares, as Juju 3.6's Meta.Hooks() lists them
// (https://github.com/juju/juju/blob/3.6/internal/charm/meta.go, with the kinds of
// internal/charm/hooks/hooks.go): the unit and secret hooks of every charm, and per endpoint,
// storage and container the hooks named after it. Juju makes exactly these files under hooks/
// executable when it packs and unpacks a charm (internal/charm/charmdir.go, charmarchive.go).

const UNIT_HOOKS = [
  'install',
  'start',
  'config-changed',
  'upgrade-charm',
  'stop',
  'remove',
  'leader-elected',
  'leader-deposed',
  'leader-settings-changed',
  'update-status',
  'pre-series-upgrade',
  'post-series-upgrade',
];
const SECRET_HOOKS = ['secret-changed', 'secret-expired', 'secret-remove', 'secret-rotate'];
const RELATION_HOOKS = ['relation-created', 'relation-joined', 'relation-changed', 'relation-departed', 'relation-broken'];
const STORAGE_HOOKS = ['storage-attached', 'storage-detaching'];
const WORKLOAD_HOOKS = ['pebble-ready', 'pebble-custom-notice', 'pebble-check-failed', 'pebble-check-recovered'];

const namesOf = (section: unknown): string[] =>
  section !== null && typeof section === 'object' && !Array.isArray(section) ? Object.keys(section) : [];

/** `metadata`: metadata.yaml as parsed; anything but a mapping declares only the unit and secret hooks. */
export function declaredHooks(metadata: unknown): Set<string> {
  const meta = (metadata !== null && typeof metadata === 'object' ? metadata : {}) as Record<string, unknown>;
  const hooks = new Set([...UNIT_HOOKS, ...SECRET_HOOKS]);
  const named = (names: string[], kinds: string[]) => {
    for (const name of names) for (const kind of kinds) hooks.add(`${name}-${kind}`);
  };
  named([...namesOf(meta.provides), ...namesOf(meta.requires), ...namesOf(meta.peers)], RELATION_HOOKS);
  named(namesOf(meta.storage), STORAGE_HOOKS);
  named(namesOf(meta.containers), WORKLOAD_HOOKS);
  return hooks;
}
