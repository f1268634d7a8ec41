import type { Cleanup } from '../../../domain/entities.js';
import type { Store } from '../../engine/store.js';

export interface BatchOutcome {
  /** Where the next batch starts; absent when the work is finished. */
  cursor?: string;
  /** With a cursor: run the next batch no earlier than this (ISO time), for work that waits on others. */
  notBefore?: string;
}

/** One bounded batch of a cleanup document's work. Must be idempotent: a batch may run twice. */
export type CleanupStep = (store: Store, cleanup: Cleanup & { cursor?: string }) => Promise<BatchOutcome>;
