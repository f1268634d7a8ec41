// required-relations-proposal.txt: "When a charm has one or more required relationships it will
// not be deployed until such time as those relationships have been satisfied." drover creates
// such an application's units at once, but assigns them to machines (so no machine is created
// or provisioned) only once an Alive relation satisfies every required endpoint.
import type { Endpoint } from './charm.js';
import type { Application, Relation } from './entities.js';

/** The application's required endpoints that no Alive relation satisfies yet. */
export function pendingRequirements(application: Pick<Application, 'name' | 'charm'>, relations: Relation[]): Endpoint[] {
  return application.charm.endpoints.filter(
    (ep) =>
      ep.required &&
      ep.role !== 'peer' && // a peer relation is created with the application, so always there
      !relations.some((r) => r.life === 'alive' && r.endpoints.some((e) => e.application === application.name && e.name === ep.name)),
  );
}

/** The pending dependencies in words, as deploy and relate report them. */
export function describePending(application: string, pending: Endpoint[]): string {
  const list = pending.map((ep) => `${ep.name} (${ep.interface})`).join(', ');
  return `application "${application}" will be deployed when its required relations are added: ${list}`;
}

export const waitingForRelationsMessage = (pending: Endpoint[]) =>
  `waiting for required relations: ${pending.map((ep) => ep.name).join(', ')}`;
