// The agent API's operations, every one a POST (./contract.ts). Every request names the unit or
// machine it acts on; the API checks that it is the calling agent's own machine, or a unit on it,
// as each route declares (functions/api/agent-routes.ts, checked by
// functions/api/agent-authorization.ts). Shared field bounds are in ./fields.ts.
import * as z from 'zod';
import { post, type RequestsOf } from './contract.js';
import { agentSecretHookOperations, agentSecretOperations } from './agent-secret-requests.js';
import { LOG_LEVELS } from '../logs/log-sink.js';
import { name, numericId, relationKey, settings, settingsKey, storableNumber, storableRecord } from './fields.js';

const unit = name;
const task = numericId('task');
/** The longest status message the API takes (status-set checks it before the hook goes on). */
export const MAX_STATUS_MESSAGE = 1000;
const status = z.strictObject({
  current: z.string().min(1).max(50),
  message: z.string().max(MAX_STATUS_MESSAGE).optional(),
  /** e.g. the hook that failed: `{hook: "install"}` (as Juju's uniter reports a hook error). */
  data: z.record(settingsKey, z.union([z.string().max(1000), storableNumber(), z.boolean()])).optional(),
});
const portChanges = z.array(z.strictObject({ action: z.enum(['open', 'close']), range: z.string().min(1).max(50) })).max(100);
/** A page of relation members or log lines: bounded, so no request grows with the model. */
export const MAX_LOG_LINES = 200;
/** Status changes in one `report`: each is a status history entry in the report's one transaction (at most 100 items). */
export const MAX_REPORTED_STATUSES = 40;
const logLine = z.strictObject({
  time: z.iso.datetime(),
  level: z.enum(LOG_LEVELS),
  module: z.string().min(1).max(200),
  message: z.string().max(16_384),
});

/** A storage instance's id: `<store>/<n>` (shared/domain/storage.ts). */
const storageId = z
  .string()
  .regex(/^[a-z][a-z0-9-]*\/\d+$/, { error: 'a storage id is <store>/<number>, as data/0' })
  .max(200);

/** Units, and relations, an agent names as its last view's: more than a machine holds in practice. */
export const MAX_VIEW_READ_AHEAD = 50;

export const agentOperations = {
  /**
   * The machine, its units and what their hooks may see: the agent's whole view. `known` is what
   * the agent's last view showed, for the API to read with the caller's machine: a view in one
   * read instead of one after another (shared/state/queries/machine-view.ts). Only a hint: the
   * view is what the machine says, whatever is named here.
   */
  view: post(
    z.strictObject({
      known: z
        .strictObject({ units: z.array(unit).max(MAX_VIEW_READ_AHEAD), relations: z.array(relationKey).max(MAX_VIEW_READ_AHEAD) })
        .optional(),
    }),
  ),
  'set-unit-status': post(z.strictObject({ unit, agent: status.optional(), workload: status.optional() })),
  /**
   * What a unit agent reports, batched (agent/uniter/unit-reporter.ts): its agent and workload
   * status changes in the order they happened, each with the agent's time (every one is a status
   * history entry; the unit keeps the last of each), the charm URL its directory holds, and its
   * log lines and its machine's. `id` names the report: the same report sent again (a retry after a lost answer)
   * changes nothing and ships no line twice.
   */
  report: post(
    z.strictObject({
      unit,
      id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, { error: 'a report id is 8 to 64 letters, digits, "-" or "_"' }),
      statuses: z
        .array(z.strictObject({ kind: z.enum(['agent', 'workload']), status, at: z.iso.datetime() }))
        .max(MAX_REPORTED_STATUSES)
        .optional(),
      charmUrl: z.string().min(1).max(500).optional(),
      lines: z.array(logLine).max(MAX_LOG_LINES).optional(),
      /** The machine agent's own lines, riding along (the unit is on the caller's machine, and so are they). */
      machineLines: z.array(logLine).max(MAX_LOG_LINES).optional(),
    }),
  ),
  'set-machine-status': post(z.strictObject({ status })),
  'enter-scope': post(z.strictObject({ unit, relation: relationKey, settings })),
  'leave-scope': post(z.strictObject({ unit, relation: relationKey })),
  'read-settings': post(z.strictObject({ unit, relationId: z.int().min(0), of: unit })),
  'write-settings': post(z.strictObject({ unit, relationId: z.int().min(0), changes: settings })),
  'destroy-unit': post(z.strictObject({ unit })),
  'subordinate-dying': post(z.strictObject({ unit })),
  'unit-dead': post(z.strictObject({ unit })),
  'remove-unit': post(z.strictObject({ unit })),
  'clear-resolved': post(z.strictObject({ unit })),
  /**
   * Where to download a charm archive from: `{ url }`, a presigned S3 GET on AWS, a signed path on
   * the local API server (relative to the API's URL) locally; valid for a few minutes, and only for
   * the archive of the unit's application. The agent checks the sha256 of what it downloads.
   */
  'charm-url': post(
    z.strictObject({ unit, charm: z.string().regex(/^[0-9a-f]{64}$/, { error: 'a charm archive is named by its sha256, in hex' }) }),
  ),
  /**
   * resource-get: the revision of a resource the unit's application uses, and where to download
   * it from (`{ revision, sha256, fingerprint, size, filename, url }`, the URL as charm-url's);
   * refused when no revision has been uploaded. The agent checks the SHA-384 fingerprint.
   */
  'resource-url': post(z.strictObject({ unit, resource: name })),
  /** The charm URL whose contents the unit's charm directory now holds. */
  'set-unit-charm': post(z.strictObject({ unit, charmUrl: z.string().min(1).max(500) })),
  'machine-dead': post(z.strictObject({})),
  /** Nothing but "this agent is alive": sent only when the agent has been quiet for a while (agent/machine/heartbeat.ts). */
  heartbeat: post(z.strictObject({})),
  /** The units `unit` observes in a relation it is in, with their settings versions; a page at a time. */
  'relation-units': post(
    z.strictObject({
      unit,
      relation: relationKey,
      cursor: z.string().max(2000).optional(),
      limit: z.int().min(1).max(100).optional(),
    }),
  ),
  /** Take the unit's application's leadership lease if free, or extend it if the unit holds it. */
  'claim-leadership': post(z.strictObject({ unit })),
  /** The unit's application's leader settings (leader-get): any unit may read them. */
  'leader-settings': post(z.strictObject({ unit })),
  /** relation-get --app: an application's bag in a relation the unit's application is in. */
  'read-app-settings': post(z.strictObject({ unit, relationId: z.int().min(0), application: name })),
  /** status-set --application: the leader only. */
  'set-application-status': post(z.strictObject({ unit, status })),
  /** status-get --application: the leader only. */
  'application-status': post(z.strictObject({ unit })),
  /** Give the lease up (a Dying leader on its way out). */
  'release-leadership': post(z.strictObject({ unit })),
  /** A successful hook's open-port/close-port calls, in order. */
  'set-unit-ports': post(z.strictObject({ unit, changes: portChanges.min(1) })),
  /** Everything a successful hook buffered (relation-set per relation, ports), in one transaction. */
  'commit-hook': post(
    z.strictObject({
      unit,
      settings: z.array(z.strictObject({ relationId: z.int().min(0), changes: settings })).max(100),
      ports: portChanges,
      /** state-set (a value) and state-delete (null); sizes are checked by the tools and the plan. */
      charmState: z.record(settingsKey, z.string().max(65_536).nullable()).optional(),
      /** application-version-set. */
      workloadVersion: z.string().max(1000).optional(),
      /** leader-set calls, merged (an empty value deletes the key); refused unless the unit leads. */
      leaderSettings: settings.optional(),
      /** relation-set --app calls, merged per relation; refused unless the unit leads. */
      appSettings: z
        .array(z.strictObject({ relationId: z.int().min(0), changes: settings }))
        .max(100)
        .optional(),
    }),
  ),
  /** The uniter takes one of its unit's pending tasks; the answer is the task (run it only if `running`). */
  'start-task': post(z.strictObject({ unit, task })),
  /** action-log: one message, stored at once (`drover show-task` shows it while the action runs). */
  'log-task': post(z.strictObject({ unit, task, message: z.string().max(16_384) })),
  /** The task ended: completed, or failed (exit status, action-fail) with a message. */
  'finish-task': post(
    z.strictObject({
      unit,
      task,
      status: z.enum(['completed', 'failed']),
      message: z.string().max(16_384).optional(),
      results: storableRecord,
    }),
  ),
  /** The unit's charm state, read when a hook first calls state-get. */
  'unit-state': post(z.strictObject({ unit })),
  /** What goal-state shows the unit: its application's units and its relations' counterparts. */
  'goal-state': post(z.strictObject({ unit })),
  /** Lines for the controller's debug log, from the machine agent (no unit) or one of its units. */
  log: post(
    z.strictObject({
      unit: unit.optional(),
      lines: z.array(logLine).min(1).max(MAX_LOG_LINES),
    }),
  ),
  /** The agent made a storage instance available to its unit at `location` (after creating it, before -storage-attached). */
  'storage-attached': post(z.strictObject({ unit, storage: storageId, location: z.string().min(1).max(4096) })),
  /** The agent ran -storage-detaching for a Dying attachment: it goes (idempotent). */
  'storage-detached': post(z.strictObject({ unit, storage: storageId })),
  /** The storage-add hook tool: `count` more instances of store `name` for the unit. */
  'storage-add': post(z.strictObject({ unit, name, count: z.int().min(1).max(100) })),
  ...agentSecretOperations,
  ...agentSecretHookOperations,
} as const;

export type AgentOperation = keyof typeof agentOperations;
export type AgentRequestOf<O extends AgentOperation> = RequestsOf<typeof agentOperations>[O];
