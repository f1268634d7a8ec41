// Peer relations: an application's peer endpoints relate it to itself. Juju creates them with the
// application (deploy), and creates those a new charm revision adds when the charm is upgraded.
import { charmEndpoints, type CharmMeta } from '../charm.js';
import type { Relation } from '../entities.js';
import { refs, type Change } from '../plan.js';
import { sequenceNames, type Numbers } from '../sequences.js';
import { FIRST_SHARDS } from '../shards.js';

/** The relation key of an application's peer endpoint: `riak:ring`. */
export const peerRelationKey = (application: string, endpoint: string) => `${application}:${endpoint}`;

/**
 * New peer relations for the charm's peer endpoints that `existing` (relation keys) lacks, with
 * their ids taken from the relation sequence.
 */
export function newPeerRelations(
  application: string,
  charm: CharmMeta,
  existing: string[],
  numbers: Numbers,
  now: string,
): { relations: Relation[]; changes: Change[] } {
  const peers = charmEndpoints(charm).filter((ep) => ep.role === 'peer' && !existing.includes(peerRelationKey(application, ep.name)));
  if (peers.length === 0) return { relations: [], changes: [] };
  const ids = numbers.take(sequenceNames.relation, peers.length);
  const relations: Relation[] = peers.map((ep, i) => ({
    key: peerRelationKey(application, ep.name),
    id: ids[i]!,
    life: 'alive',
    endpoints: [{ application, ...ep }],
    scope: ep.scope,
    unitCount: 0,
    scopeShards: FIRST_SHARDS,
    createdAt: now,
  }));
  return {
    relations,
    changes: relations.map((r): Change => ({ op: 'create', ref: refs.relation(r.key), value: { ...r } })),
  };
}
