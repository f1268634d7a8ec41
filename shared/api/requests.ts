// The user API's operations: each one's method and request schema (./contract.ts), validated with
// zod by the API and typed for its clients (the CLI). The route is `<method> /v1/<operation>`.
import * as z from 'zod';
import { MAX_CHARM_ARCHIVE_BYTES } from '../charmstore/charm-archive-stream.js';
import { get, post, type ReadOperationsOf, type RequestsOf } from './contract.js';
import { secretOperations } from './secret-requests.js';
import { name, nameList, names, numericId, settings as keyValues, storableNumber, storableRecord } from './fields.js';

const constraints = z.string().max(2000);
/** An authorized_keys line (a 16384-bit RSA key is under 3 KB), or a key's fingerprint or comment. */
const sshKey = z.string().min(1).max(16_384);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, { error: 'a charm archive is named by its sha256, in lowercase hex' });
/** A query parameter given once, repeated, or comma-separated: `include=a,b&include=c`. */
const list = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter((s) => s !== ''))
  .pipe(nameList);

const charm = z.strictObject({
  metadata: z.string().min(1, { error: 'metadata.yaml is empty' }),
  config: z.string().optional(),
  /** actions.yaml, checked at deploy (shared/domain/actions.ts). */
  actions: z.string().optional(),
  /** charmcraft's manifest.yaml and charmcraft.yaml: the bases of a charm whose metadata has no series. */
  manifest: z.string().optional(),
  charmcraft: z.string().optional(),
  /**
   * The charm as a base64 tar.gz (a directory), or a base64 zip (a `.charm` as charmcraft packs
   * it, converted on arrival); kept in the charm store for the agents. For small charms only: the
   * whole request is bounded at a few megabytes (MAX_REQUEST_BODY_BYTES). Any larger charm goes
   * by `upload`.
   */
  archive: z.string().optional(),
  /**
   * The sha256 of a tar.gz uploaded with `charm-upload` (not with `archive`): checked as it
   * streams and kept in the charm store. A `.charm` zip is converted to a tar.gz before upload.
   */
  upload: sha256.optional(),
});

/**
 * A charm the controller fetches from Charmhub (the model's `charmhub-url`) by name, as Juju's
 * controller does: the channel (`14/stable`) or a revision, on the request's base. For
 * upgrade-charm the name may be left out: the application's charm's.
 */
const charmhubCharm = z.strictObject({
  charmhub: z.strictObject({
    name: name.optional(),
    channel: z.string().min(1).max(200).optional(),
    revision: z
      .int()
      .min(0)
      .max(2 ** 31)
      .optional(),
  }),
});
const charmOrCharmhub = z.union([charm, charmhubCharm]);

/**
 * Resource name → the sha256 of its file, uploaded beforehand with `charm-upload` as a charm is
 * (an empty file is named by the sha256 of nothing and not uploaded). At most a few: a charm
 * declares a handful, and each costs a read of its upload.
 */
const resourceUploads = z.record(name, sha256).refine((r) => Object.keys(r).length <= 50, { error: 'at most 50 resources in one request' });

/** Store name → Juju's storage constraints text (`ebs,10G,2`): a charm declares a handful of stores. */
const storageRequests = z
  .record(name, z.string().max(100))
  .refine((r) => Object.keys(r).length <= 50, { error: 'at most 50 stores in one request' });

export const userOperations = {
  deploy: post(
    z.strictObject({
      charm: charmOrCharmhub,
      name: name.optional(),
      series: name.optional(),
      /** `ubuntu@22.04`: Juju 3's spelling of a series; not with `series`. */
      base: name.optional(),
      constraints: constraints.optional(),
      config: keyValues.optional(),
      numUnits: z.int().min(0).max(10_000).optional(),
      to: nameList.optional(),
      /** deploy --trust: Juju's application-config `trust`. */
      trust: z.boolean().optional(),
      /** `--resource name=path`: the first revision of each resource given (shared/domain/resources.ts). */
      resources: resourceUploads.optional(),
      /** `--storage <store>=<constraints>`: Juju's `pool,size,count` (shared/domain/storage.ts). */
      storage: storageRequests.optional(),
    }),
  ),
  /** attach-resource: each resource given becomes the application's next revision of it. */
  'attach-resource': post(z.strictObject({ application: name, resources: resourceUploads })),
  /** `GET /v1/resources?application=mysql`: the resources its charm declares and the revisions it uses. */
  resources: get(z.strictObject({ application: name })),
  /**
   * Where to PUT a charm archive of this sha256 and size (a tar.gz): `{ url, headers }`, valid for
   * a few minutes; send the headers as they are. A presigned S3 PUT on AWS, a signed path on the
   * local API server locally (relative to the API's URL). Then deploy or upgrade-charm with
   * `charm.upload: <sha256>`.
   */
  'charm-upload': post(z.strictObject({ sha256, size: z.int().min(1).max(MAX_CHARM_ARCHIVE_BYTES) })),
  /**
   * upgrade-charm (refresh): the application takes a new revision of its charm; with `switch`, a
   * local charm of another name (a Charmhub one names itself: `charmhub.name`); `resources`
   * (`--resource name=path`), uploads that become their resources' next revisions.
   */
  'upgrade-charm': post(
    z.strictObject({
      application: name,
      charm: charmOrCharmhub,
      forceUnits: z.boolean().optional(),
      switch: z.boolean().optional(),
      resources: resourceUploads.optional(),
    }),
  ),
  'add-unit': post(z.strictObject({ application: name, count: z.int().min(1).max(10_000).optional(), to: nameList.optional() })),
  'add-machine': post(
    z.strictObject({
      count: z.int().min(1).max(1000).optional(),
      series: name.optional(),
      base: name.optional(),
      constraints: constraints.optional(),
    }),
  ),
  'remove-unit': post(z.strictObject({ units: names, force: z.boolean().optional(), destroyStorage: z.boolean().optional() })),
  'remove-application': post(
    z.strictObject({ applications: names, force: z.boolean().optional(), destroyStorage: z.boolean().optional() }),
  ),
  'remove-machine': post(z.strictObject({ machines: names, force: z.boolean().optional() })),
  /** The model's storage: Juju's `storage`, `filesystems` and `volumes` (shared/domain/storage-views.ts). */
  storage: get(z.strictObject({})),
  'show-storage': post(z.strictObject({ ids: names })),
  /** The model's storage pools: rootfs; ebs on AWS. */
  'storage-pools': get(z.strictObject({})),
  /** add-storage <unit> <store>=<constraints>...: more storage for a unit, each store in its own transaction. */
  'add-storage': post(z.strictObject({ unit: name, storage: storageRequests })),
  'detach-storage': post(z.strictObject({ ids: names, force: z.boolean().optional() })),
  'remove-storage': post(z.strictObject({ ids: names, force: z.boolean().optional(), noDestroy: z.boolean().optional() })),
  relate: post(z.strictObject({ endpoints: z.array(name).min(1).max(3) })),
  'remove-relation': post(z.union([z.strictObject({ endpoints: z.array(name).min(1).max(2) }), z.strictObject({ id: z.int().min(0) })])),
  'set-constraints': post(z.strictObject({ application: name, constraints })),
  'get-constraints': post(z.strictObject({ application: name })),
  'set-model-constraints': post(z.strictObject({ constraints })),
  'get-model-constraints': post(z.strictObject({})),
  /** Without set or reset: the model's config as it is (every key, its value and source). */
  'model-config': post(z.strictObject({ set: keyValues.optional(), reset: nameList.optional() })),
  config: post(z.strictObject({ application: name, set: keyValues.optional(), reset: nameList.optional() })),
  resolved: post(
    z.union([
      z.strictObject({ units: names, noRetry: z.boolean().optional() }),
      z.strictObject({ machine: name, constraints: constraints.optional() }),
    ]),
  ),
  'retry-provisioning': post(z.strictObject({ machines: names })),
  expose: post(z.strictObject({ application: name })),
  /** `drover trust <app>` (`--remove`: false). */
  trust: post(z.strictObject({ application: name, trust: z.boolean() })),
  unexpose: post(z.strictObject({ application: name })),
  /** The controller's models (shared/domain/models.ts): their scope is the controller. */
  'add-model': post(z.strictObject({ name, config: keyValues.optional(), constraints: constraints.optional() }), { controller: true }),
  models: get(z.strictObject({}), { controller: true }),
  /** The controller's model defaults (shared/domain/model-defaults.ts), shown, or changed then shown. */
  'model-defaults': post(z.strictObject({ set: keyValues.optional(), reset: nameList.optional() }), { controller: true }),
  'show-model': get(z.strictObject({ name }), { controller: true }),
  /** The model goes Dying and its cleanup destroys what is in it; `force` also takes units in error. */
  'destroy-model': post(
    z.strictObject({
      name,
      force: z.boolean().optional(),
      /** `--destroy-storage` / `--release-storage`: required when the model holds persistent storage. */
      storage: z.enum(['destroy', 'release']).optional(),
    }),
    { controller: true },
  ),
  /**
   * The model's status; with `application`, `unit` or `machine` (exact names), only what those can
   * show (shared/state/queries/status-selection.ts): `status mysql` reads mysql, not the model.
   */
  status: get(
    z.strictObject({
      application: list.optional(),
      unit: list.optional(),
      machine: list.optional(),
      /**
       * With `cursor` or `limit` (and no selectors), one page of the whole model's status
       * (shared/domain/status-page.ts): `cursor` from the previous page (absent: the first),
       * `limit` the entities wanted in it (a hint, capped by the server).
       */
      cursor: z.string().min(1).max(16_384).optional(),
      limit: z.coerce.number().int().min(1).max(100_000).optional(),
    }),
  ),
  stuck: get(z.strictObject({})),
  /**
   * `GET /v1/model-revision[?since=<revision>]`: the model's revision, which moves (a second or so
   * after, the stream's delay) whenever anything in the model changed, read from one item
   * (shared/state/queries/model-revision.ts); with `since`, also whether it is no longer that one.
   * Revisions are opaque: compare them for equality only. Cheap enough to ask every few seconds,
   * as `drover dashboard` does (docs/dashboard.md, "What it shows").
   */
  'model-revision': get(z.strictObject({ since: z.coerce.number().int().min(0).optional() })),
  /**
   * `GET /v1/debug-log?include=unit-mysql-0&level=INFO&limit=N[&since=<iso>][&after=<cursor>]`:
   * without `after`, the last `limit` matching lines (replay: a large limit); with it, the lines
   * logged since that cursor (tailing: pass back each answer's `cursor`). Cursors are opaque: a
   * byte offset locally, up to ~3,500 characters on AWS (shared/logs/cloudwatch-log-cursor.ts).
   */
  /**
   * Cross-model relations (shared/domain/cross-model.ts). `offer` and `remove-offer` act on the
   * model the request names (the offering one); `consume` and `remove-saas` on the consuming one,
   * `consume` naming the offering model in its body; `find-offers` looks through every model.
   */
  offer: post(z.strictObject({ application: name, endpoints: names, name: name.optional() })),
  'remove-offer': post(z.strictObject({ offer: name, force: z.boolean().optional() })),
  offers: get(z.strictObject({})),
  'show-offer': get(z.strictObject({ offer: name })),
  'find-offers': get(z.strictObject({}), { controller: true }),
  consume: post(z.strictObject({ model: name, offer: name, alias: name.optional() })),
  'remove-saas': post(z.strictObject({ names })),
  /** Status' `application-endpoints` and `offers` sections of the model. */
  'cross-model-status': get(z.strictObject({})),
  'debug-log': get(
    z.strictObject({
      since: z.iso.datetime().optional(),
      after: z.string().max(4000).optional(),
      include: list.optional(),
      exclude: list.optional(),
      level: z.string().max(20).optional(),
      limit: z.coerce.number().int().min(1).max(10_000).optional(),
    }),
  ),
  /** `GET /v1/status-log?entity=mysql/0&type=workload&n=20`: an entity's status history, oldest first. */
  'status-log': get(
    z.strictObject({
      entity: name,
      type: z.enum(['unit', 'juju-unit', 'workload', 'machine', 'juju-machine', 'application']).optional(),
      n: z.coerce.number().int().min(1).max(1000).optional(),
    }),
  ),
  /** `drover run <unit>... <action> [key=value...]`: one operation, a task per unit. */
  run: post(
    z.strictObject({
      units: z.array(name).min(1, { error: 'no unit specified' }).max(40),
      action: name,
      parameters: storableRecord.optional(),
    }),
  ),
  /**
   * `drover exec`: the command on every unit named or of the applications named, and on each
   * machine named (or all) through a unit on it; `machineOf` in the answer maps such a unit to
   * its machine.
   */
  exec: post(
    z.strictObject({
      units: z.array(name).max(40).optional(),
      applications: z.array(name).max(40).optional(),
      machines: z.array(name).max(40).optional(),
      /** Every machine that hosts a unit (`exec --all`). */
      all: z.boolean().optional(),
      command: z.string().min(1, { error: 'no commands specified' }).max(16_000),
      /** Seconds; Juju's default is 5 minutes. */
      timeout: storableNumber().positive().optional(),
    }),
  ),
  /** `drover cancel-task <id>...`: pending tasks become cancelled. */
  'cancel-task': post(
    z.strictObject({
      ids: z.array(numericId('task')).min(1).max(100),
    }),
  ),
  /** `GET /v1/show-task?id=2`. */
  'show-task': get(z.strictObject({ id: numericId('task') })),
  /** `GET /v1/show-operation?id=1`. */
  'show-operation': get(z.strictObject({ id: numericId('operation') })),
  /** `GET /v1/operations?limit=50`: the latest operations, newest first. */
  operations: get(z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).optional() })),
  /**
   * `GET /v1/show-unit?unit=mysql/0`: what show-unit adds to status, the unit's workload version
   * and `relation-info` (shared/state/queries/unit-relation-info.ts).
   */
  'show-unit': get(z.strictObject({ unit: name })),
  /** `GET /v1/actions?application=mysql`: the actions its charm defines. */
  actions: get(z.strictObject({ application: name })),
  ...secretOperations,
  /**
   * The model's SSH keys (its `authorized-keys`, shared/domain/ssh-keys.ts): `ssh-keys` lists them
   * (`full`: the keys, else fingerprints and comments); add and remove answer per key, as Juju.
   */
  'ssh-keys': get(z.strictObject({ full: z.enum(['true', 'false']).optional() })),
  'add-ssh-keys': post(z.strictObject({ keys: z.array(sshKey).min(1).max(100) })),
  'remove-ssh-keys': post(z.strictObject({ ids: z.array(sshKey).min(1).max(100) })),
} as const;

export type Operation = keyof typeof userOperations;
export type RequestOf<O extends Operation> = RequestsOf<typeof userOperations>[O];

/** The operations that only read: the CLI's client takes only these for `get` (cli/client.ts). */
export type ReadOperation = ReadOperationsOf<typeof userOperations>;
export type WriteOperation = Exclude<Operation, ReadOperation>;

/** Bulk removals answer per entity, as Juju prints a line per entity. */
export interface EntityResult {
  entity: string;
  ok: boolean;
  message: string;
}

/** The body of every error response. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** Turns zod's issues into one sentence that says which field was wrong and how. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      // A bad key of a record (an empty settings key): name the key and say what is wrong with it.
      if (issue.code === 'invalid_key') {
        const key = JSON.stringify(String(issue.path.at(-1)));
        const where = issue.path.slice(0, -1).join('.');
        return `${where ? `"${where}" ` : ''}key ${key}: ${issue.issues.map((i) => i.message).join('; ')}`;
      }
      const path = issue.path.join('.');
      return path ? `"${path}": ${issue.message}` : issue.message;
    })
    .join('; ');
}
