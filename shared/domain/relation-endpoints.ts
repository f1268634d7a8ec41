// Endpoint inference for `relate`, after Juju's State.InferEndpoints and the checks of
// State.AddRelation that depend only on the two applications
// (https://github.com/juju/juju/blob/2.9/state/state.go). Limits and duplicates need the existing
// relations, so the state layer checks those.
import type { Endpoint, Role, Scope } from './charm.js';
import { DroverError, invalidArgument } from './errors.js';
import { isValidApplicationName, isValidEndpointName } from './names.js';

export interface AppEndpoints {
  application: string;
  series: string;
  subordinate: boolean;
  /** From charmEndpoints(), i.e. including the implicit juju-info provider. */
  endpoints: Endpoint[];
}

export interface RelationEndpoint {
  application: string;
  name: string;
  role: Role;
  interface: string;
  scope: Scope;
  limit?: number;
  required: boolean;
}

export function parseEndpointArg(arg: string): { application: string; endpoint?: string } {
  const [application = '', endpoint, ...rest] = arg.split(':');
  const valid = isValidApplicationName(application) && rest.length === 0 && (endpoint === undefined || isValidEndpointName(endpoint));
  if (!valid) throw invalidArgument(`invalid endpoint "${arg}"; use <application> or <application>:<endpoint>`);
  return endpoint === undefined ? { application } : { application, endpoint };
}

// Canonical order (lifecycles.txt: "a sequence of endpoint pairs sorted by role"): requirer,
// provider, peer; ties broken by `app:endpoint`, compared bytewise as Juju does.
const ROLE_ORDER: Record<Role, number> = { requirer: 0, provider: 1, peer: 2 };
const label = (ep: RelationEndpoint) => `${ep.application}:${ep.name}`;
const byRole = (a: RelationEndpoint, b: RelationEndpoint) =>
  ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || (label(a) < label(b) ? -1 : label(a) > label(b) ? 1 : 0);

export function relationKey(endpoints: RelationEndpoint[]): string {
  return [...endpoints].sort(byRole).map(label).join(' ');
}

export function relationScope(endpoints: RelationEndpoint[]): Scope {
  return endpoints.some((ep) => ep.scope === 'container') ? 'container' : 'global';
}

const COUNTERPART: Record<Role, Role | undefined> = { provider: 'requirer', requirer: 'provider', peer: undefined };
const canRelate = (a: RelationEndpoint, b: RelationEndpoint) =>
  a.application !== b.application && a.interface === b.interface && COUNTERPART[a.role] === b.role;
// Only juju-info is implicit: declared endpoints may not use juju-* names.
const isImplicit = (ep: RelationEndpoint) => ep.name === 'juju-info' && ep.role === 'provider';

interface Side {
  app: AppEndpoints;
  explicit: boolean;
  endpoints: RelationEndpoint[];
}

function resolve(arg: string, apps: (name: string) => AppEndpoints | undefined): Side {
  const { application, endpoint } = parseEndpointArg(arg);
  const app = apps(application);
  if (!app) throw new DroverError('not-found', `application "${application}" not found`);
  const all = app.endpoints.map((ep): RelationEndpoint => ({ application, ...ep }));
  if (endpoint === undefined) return { app, explicit: false, endpoints: all.sort(byRole) };
  const found = all.find((ep) => ep.name === endpoint);
  if (!found) throw new DroverError('not-found', `application "${application}" has no "${endpoint}" relation`);
  return { app, explicit: true, endpoints: [found] };
}

export function inferRelation(args: string[], apps: (name: string) => AppEndpoints | undefined): RelationEndpoint[] {
  if (args.length !== 1 && args.length !== 2) throw invalidArgument(`cannot relate ${args.length} endpoints`);
  const sides = args.map((arg) => resolve(arg, apps));
  const candidates = sides.length === 1 ? peerCandidates(sides) : pairCandidates(sides);
  const chosen = pick(args, candidates);
  // Checked on the chosen relation, as Juju's AddRelation does: subordinate units run on their
  // principal's machine, and a machine has one series. Global relations may cross series.
  const [a, b] = sides;
  if (a && b && relationScope(chosen) === 'container' && a.app.series !== b.app.series) {
    throw invalidArgument("principal and subordinate applications' series must match");
  }
  return chosen;
}

function peerCandidates([side]: Side[]): RelationEndpoint[][] {
  return (side?.endpoints ?? []).filter((ep) => ep.role === 'peer').map((ep) => [ep]);
}

function pairCandidates(sides: Side[]): RelationEndpoint[][] {
  const [a, b] = sides as [Side, Side];
  if (a.app.application === b.app.application) {
    throw invalidArgument(
      `cannot relate application "${a.app.application}" to itself; peer relations are declared in the charm and created at deploy`,
    );
  }
  const subordinates = Number(a.app.subordinate) + Number(b.app.subordinate);
  const candidates: RelationEndpoint[][] = [];
  let needsSubordinate = false;
  for (const ea of a.endpoints) {
    for (const eb of b.endpoints) {
      if (!canRelate(ea, eb)) continue;
      if (ea.scope === 'global' && eb.scope === 'global') {
        candidates.push([ea, eb]);
      } else if (subordinates === 0) {
        // Juju drops these silently; remembering why lets us explain an empty result.
        needsSubordinate = true;
      } else {
        // A container-scoped relation binds both ends to one container, so both take that scope
        // (this is how an implicit juju-info provider becomes container-scoped).
        candidates.push([
          { ...ea, scope: 'container' },
          { ...eb, scope: 'container' },
        ]);
      }
    }
  }
  if (candidates.length === 0) {
    if (needsSubordinate) throw invalidArgument('container scoped relation requires at least one subordinate application');
    if (a.explicit && b.explicit) throw invalidArgument('endpoints do not relate');
  }
  return candidates;
}

function pick(args: string[], candidates: RelationEndpoint[][]): RelationEndpoint[] {
  if (candidates.length === 0) throw invalidArgument('no relations found');
  if (candidates.length === 1) return candidates[0] as RelationEndpoint[];
  // Explicit interface matches win over the implicit juju-info (required-relations-proposal.txt: juju-info is the fallback).
  const explicit = candidates.filter((c) => !c.some(isImplicit));
  if (explicit.length === 1) return explicit[0] as RelationEndpoint[];
  const options = candidates.map((c) => `"${relationKey(c)}"`).join('; ');
  throw invalidArgument(`ambiguous relation: "${args.join(' ')}" could refer to ${options}`);
}
