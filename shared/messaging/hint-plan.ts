// Pure: from one stream record's images, what hint to send and whose machines to look up.
// No I/O here; shared/messaging/affected-machines.ts turns the lookups into machine ids.
//
// The rules follow the agents' responsibilities (lifecycles.txt, "Agents"): a machine agent
// watches its machine and the units on it; a unit agent watches its application (Dying, config),
// the relations of its application (enter scope when Alive, leave when Dying), and the scopes
// and settings of the relations it is in. Changes no agent acts on send nothing: a status an
// agent wrote itself would only echo back, and the counters (an application's unitCount, a
// relation's unitCount) change on every add-unit and enter-scope — fanning out on them would
// hint every unit of a 100k-unit application once per unit, O(n²).
import type { Application, Machine, Model, Relation, RelationSettings, ScopeMember, Unit } from '../domain/entities.js';
import type { LeaderSettings, Lease } from '../domain/leadership.js';
import type { AppSettings } from '../domain/plans/app-settings.js';
import type { SecretConsumer, SecretMetadata } from '../domain/secrets.js';
import type { EntityRef } from '../domain/plan.js';
import type { StorageAttachment, StorageInstance } from '../domain/storage.js';
import type { StreamImages } from '../state/engine/stream-record.js';
import type { Hint } from './hint.js';

export type Lookup =
  /** Machines named by the images themselves; they may be gone since, so check they exist. */
  | { kind: 'machines'; ids: string[] }
  /** The machines of every unit of these applications, page by page. */
  | { kind: 'unitsOfApplications'; applications: string[] }
  /** A unit entered or left a relation's scope (or started departing): its counterparts must run -joined/-departed. */
  | { kind: 'scopeChanged'; relation: string; unit: string }
  /** A unit's settings in a relation changed: the units in that relation's scope must run -changed. */
  | { kind: 'settingsChanged'; relationId: number; unit: string }
  /** Every machine of the model: for model config, which every unit agent acts on (update-status). */
  | { kind: 'allMachines' }
  /** The machines of these units (a storage instance names the unit it is attached to, not its machine). */
  | { kind: 'unitMachines'; units: string[] };

export type HintPlan = { kind: 'hint'; hint: Hint; lookups: Lookup[] } | { kind: 'none'; why: string } | { kind: 'malformed'; why: string };

const KINDS: ReadonlySet<string> = new Set<EntityRef['kind']>([
  'model',
  'application',
  'unit',
  'machine',
  'relation',
  'scope',
  'settings',
  'sequence',
  'cleanup',
  'statusLog',
  'presence',
  'operation',
  'task',
  'unitState',
  'lease',
  'leaderSettings',
  'appSettings',
  'modelRevision',
  'offer',
  'remoteApplication',
  'secret',
  'secretRevision',
  'secretConsumer',
  'secretLabel',
  'storage',
  'storageAttachment',
]);

const none = (why: string): HintPlan => ({ kind: 'none', why });
const hint = (h: Hint, ...lookups: Lookup[]): HintPlan => ({ kind: 'hint', hint: h, lookups });

/** Fields agents write about themselves, or that only the controller acts on. */
const MACHINE_STATUS_FIELDS = ['agentStatus', 'instanceStatus'];
/** A unit's reported charm URL is for status only: its own agent wrote it and knows it, as the id of its last report. */
// `ownsSecrets` only tells its removal to take its secrets along (the ownerSecrets cleanup).
const UNIT_STATUS_FIELDS = [
  'agentStatus',
  'workloadStatus',
  'charmUrl',
  'workloadVersion',
  'workloadVersionSince',
  'lastReport',
  'ownsSecrets',
];
/**
 * The application fields a unit agent acts on: Dying, config-changed, upgrade (its charm, or a resource), ports. Not its
 * `relations`: the relation's own record tells the units.
 */
const APPLICATION_WATCHED = ['life', 'config', 'configVersion', 'charmUrl', 'charmModifiedVersion', 'exposed'];

// Key order may differ between images of equal maps; that only errs towards a needless hint.
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

type Fields = Record<string, unknown>;

/** True if old and new differ in anything but the ignored fields. */
function changedBeyond(oldImage: object, newImage: object, ignored: string[]): boolean {
  const [o, n] = [oldImage as Fields, newImage as Fields];
  const names = new Set([...Object.keys(o), ...Object.keys(n)]);
  return [...names].some((name) => !ignored.includes(name) && !same(o[name], n[name]));
}

const changedIn = (oldImage: object, newImage: object, watched: string[]) =>
  watched.some((name) => !same((oldImage as Fields)[name], (newImage as Fields)[name]));

export function planHint({ kind, oldImage, newImage }: StreamImages): HintPlan {
  if (!oldImage && !newImage) return { kind: 'malformed', why: 'record has neither an old nor a new image' };
  if (!kind || !KINDS.has(kind)) return { kind: 'malformed', why: `item kind ${JSON.stringify(kind)} is not an entity kind` };
  switch (kind as EntityRef['kind']) {
    case 'machine':
      return planMachine(oldImage as Machine | undefined, newImage as Machine | undefined);
    case 'unit':
      return planUnit(oldImage as Unit | undefined, newImage as Unit | undefined);
    case 'application':
      return planApplication(oldImage as Application | undefined, newImage as Application | undefined);
    case 'relation':
      return planRelation(oldImage as Relation | undefined, newImage as Relation | undefined);
    case 'scope':
      return planScope((newImage ?? oldImage) as unknown as ScopeMember);
    case 'settings':
      return planSettings(oldImage as RelationSettings | undefined, newImage as RelationSettings | undefined);
    case 'lease':
      return planLease(oldImage as Lease | undefined, newImage as Lease | undefined);
    case 'leaderSettings':
      return planLeaderSettings(oldImage as LeaderSettings | undefined, newImage as LeaderSettings | undefined);
    case 'appSettings':
      return planAppSettings(oldImage as AppSettings | undefined, newImage as AppSettings | undefined);
    case 'secret':
      return planSecret(oldImage as SecretMetadata | undefined, newImage as SecretMetadata | undefined);
    case 'model':
      return planModel(oldImage as Model | undefined, newImage as Model | undefined);
    case 'storage':
      return planStorage(oldImage as StorageInstance | undefined, newImage as StorageInstance | undefined);
    case 'storageAttachment':
      return planStorageAttachment(oldImage as StorageAttachment | undefined, newImage as StorageAttachment | undefined);
    case 'modelName':
    case 'modelDefaults':
    case 'sequence':
    case 'cleanup':
    case 'statusLog':
    case 'presence':
    // A unit learns of its tasks from its own item's `pendingTasks`, which the same transaction changes.
    case 'operation':
    case 'task':
    case 'unitState':
    // The dashboard's cursor (shared/state/operations/model-revision.ts); its records are filtered out before this.
    case 'modelRevision':
    // Offers and remote applications are the user's: no agent acts on them.
    case 'offer':
    case 'remoteApplication':
    case 'secretConsumer':
      return planSecretConsumer(oldImage as SecretConsumer | undefined, newImage as SecretConsumer | undefined);
    // A secret's own item carries what its hooks depend on (its latest revision, schedule, grants).
    case 'secretRevision':
    case 'secretLabel':
      return none(`no agent watches ${kind} items`);
  }
}

/** What a secret's hooks depend on: who sees it, its latest revision and its schedule (never its content). */
const SECRET_WATCHED = ['latestRevision', 'latestExpireTime', 'nextRotateTime', 'rotatePolicy', 'grants', 'owner'];

/**
 * A secret's latest revision, schedule or grants changed, or it came or went: the units of its
 * owner and of every application it is granted to read their secrets again (the hint names the
 * secret, never its content), so consumers run secret-changed and owners secret-rotate on time.
 */
function planSecret(oldS: SecretMetadata | undefined, newS: SecretMetadata | undefined): HintPlan {
  if (oldS && newS && !changedIn(oldS, newS, SECRET_WATCHED)) return none('secret: nothing its hooks depend on');
  const secrets = [oldS, newS].filter((s): s is SecretMetadata => s !== undefined);
  const applications = new Set<string>();
  for (const secret of secrets) {
    if (secret.owner.kind !== 'model') applications.add(secret.owner.name.split('/')[0]!);
    for (const grant of secret.grants) applications.add(grant.target.replace(/^(application|unit)-/, '').split('/')[0]!);
  }
  if (applications.size === 0) return none('secret: no unit owns or was granted it');
  const id = (newS ?? oldS)!.id;
  return hint({ kind: 'secret', id }, { kind: 'unitsOfApplications', applications: [...applications].sort() });
}

/**
 * A consumer moved to another revision, or went: the revision it left may be tracked by nobody
 * now, so the owner's units look again and run secret-remove for it (Juju's owner learns the same
 * from its watcher of obsolete revisions). Seen revisions and labels change nothing for the owner.
 */
function planSecretConsumer(oldC: SecretConsumer | undefined, newC: SecretConsumer | undefined): HintPlan {
  if (oldC && newC && oldC.currentRevision === newC.currentRevision) return none('secret consumer: still tracks the same revision');
  if (!oldC) return none('secret consumer: a first read leaves no revision behind');
  const { secret, ownerApplication } = newC ?? oldC;
  if (!secret || !ownerApplication) return none('secret consumer: no owner application to tell');
  return hint({ kind: 'secret', id: secret }, { kind: 'unitsOfApplications', applications: [ownerApplication] });
}

/**
 * model-config: every unit agent runs update-status on the model's interval, so a change tells
 * every machine (a rare user action; the constraints and counters the model item also holds do
 * not concern agents).
 */
function planModel(oldM: Model | undefined, newM: Model | undefined): HintPlan {
  if (!oldM || !newM || !changedIn(oldM, newM, ['config'])) return none('model: nothing agents act on');
  return hint({ kind: 'model', id: '' }, { kind: 'allMachines' });
}

function planMachine(oldM: Machine | undefined, newM: Machine | undefined): HintPlan {
  // A removed machine has no agent left; hinting it would only re-create its deleted queue.
  if (!newM) return none('machine removed');
  if (oldM && !changedBeyond(oldM, newM, MACHINE_STATUS_FIELDS)) return none('machine status only');
  return hint({ kind: 'machine', id: newM.id }, { kind: 'machines', ids: [newM.id] });
}

function planUnit(oldU: Unit | undefined, newU: Unit | undefined): HintPlan {
  if (oldU && newU && !changedBeyond(oldU, newU, UNIT_STATUS_FIELDS)) return none('unit status only');
  const unit = (newU ?? oldU)!;
  // Both machines: the one it is on deploys it, the one it left (or was removed from) recalls it.
  const ids = [...new Set([oldU?.machine, newU?.machine].filter((m): m is string => !!m))];
  if (ids.length === 0) return none('unit not assigned to a machine');
  return hint({ kind: 'unit', id: unit.name }, { kind: 'machines', ids });
}

function planApplication(oldA: Application | undefined, newA: Application | undefined): HintPlan {
  // Created: its units' own records hint their machines. Removed: it has no units left.
  if (!oldA || !newA) return none(newA ? 'application created' : 'application removed');
  if (!changedIn(oldA, newA, APPLICATION_WATCHED)) return none('no application field an agent acts on changed');
  return hint({ kind: 'application', id: newA.name }, { kind: 'unitsOfApplications', applications: [newA.name] });
}

function planRelation(oldR: Relation | undefined, newR: Relation | undefined): HintPlan {
  // Removed only once no unit is in scope: nobody left to tell.
  if (!newR) return none('relation removed');
  // Created: units enter scope. Life changed: units in scope leave it (Dying).
  if (oldR && oldR.life === newR.life) return none('relation life unchanged');
  const applications = [...new Set(newR.endpoints.map((e) => e.application))];
  return hint({ kind: 'relation', id: newR.key }, { kind: 'unitsOfApplications', applications });
}

function planScope(member: ScopeMember): HintPlan {
  return hint({ kind: 'relation', id: member.relation }, { kind: 'scopeChanged', relation: member.relation, unit: member.unit });
}

function planSettings(oldS: RelationSettings | undefined, newS: RelationSettings | undefined): HintPlan {
  // Deleted when the unit left scope or the relation was removed; the scope record covers both.
  if (!newS) return none('settings removed');
  if (oldS && same(oldS.settings, newS.settings)) return none('settings unchanged');
  return hint(
    { kind: 'settings', id: `${newS.relationId}:${newS.unit}` },
    { kind: 'settingsChanged', relationId: newS.relationId, unit: newS.unit },
  );
}

/**
 * A new holder (or none, once released or freed by the sweep when it ran out): every unit of the
 * application looks again, so the new leader runs leader-elected and the others claim. Not an
 * extension of the same holder's lease: every leader renews every few minutes, and that concerns
 * nobody else.
 */
function planLease(oldL: Lease | undefined, newL: Lease | undefined): HintPlan {
  if (oldL && newL && oldL.holder === newL.holder) return none('lease extended');
  const application = (newL ?? oldL)!.application;
  return hint({ kind: 'application', id: application }, { kind: 'unitsOfApplications', applications: [application] });
}

/** Changed leader settings: the followers run leader-settings-changed. */
function planLeaderSettings(oldS: LeaderSettings | undefined, newS: LeaderSettings | undefined): HintPlan {
  if (!newS) return none('leader settings removed');
  if (oldS && same(oldS.settings, newS.settings)) return none('leader settings unchanged');
  return hint({ kind: 'application', id: newS.application }, { kind: 'unitsOfApplications', applications: [newS.application] });
}

/**
 * An application's bag changed: the units in the relation's scope read its version again (with
 * the relation's members) and the other side runs -changed. The lookup names the application
 * where a unit would be: no unit has that name, so every unit in scope is told.
 */
function planAppSettings(oldS: AppSettings | undefined, newS: AppSettings | undefined): HintPlan {
  if (!newS) return none('application settings removed');
  if (oldS && same(oldS.settings, newS.settings)) return none('application settings unchanged');
  return hint({ kind: 'relation', id: newS.relation }, { kind: 'scopeChanged', relation: newS.relation, unit: newS.application });
}

/** What a unit agent shows its hooks of a storage instance: the volume (its device), its life. */
const STORAGE_WATCHED = ['volume', 'life'];

/**
 * A volume attached (its device known) or the instance going: the unit it is attached to looks
 * again. Created: its attachment's record (and the unit's `storageAttachments`) tells the unit.
 */
function planStorage(oldS: StorageInstance | undefined, newS: StorageInstance | undefined): HintPlan {
  if (!oldS || !newS) return none(newS ? 'storage created: its attachment tells the unit' : 'storage removed');
  if (!changedIn(oldS, newS, STORAGE_WATCHED)) return none('storage: nothing its unit acts on');
  const units = newS.attachments ?? [];
  if (units.length === 0) return none('storage: attached to no unit');
  return hint({ kind: 'unit', id: units[0]! }, { kind: 'unitMachines', units: [...units] });
}

/**
 * An attachment made, Dying (detach-storage) or gone: its unit's machine runs the storage hooks.
 * The location is what the agent itself reported: no hint.
 */
function planStorageAttachment(oldA: StorageAttachment | undefined, newA: StorageAttachment | undefined): HintPlan {
  if (oldA && newA && oldA.life === newA.life) return none('storage attachment: life unchanged');
  const attachment = (newA ?? oldA)!;
  // Assigned after its storage was made (it waited for required relations): its unit knows the machine.
  if (!attachment.machine) return hint({ kind: 'unit', id: attachment.unit }, { kind: 'unitMachines', units: [attachment.unit] });
  return hint({ kind: 'unit', id: attachment.unit }, { kind: 'machines', ids: [attachment.machine] });
}
