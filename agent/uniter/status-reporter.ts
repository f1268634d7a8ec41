// The unit's statuses, written in order by one worker without holding up the hooks: the agent
// status Juju's uniter reports (executing `running <hook> hook`, idle, error: https://juju.is/docs/juju/status) and the workload statuses the
// agent sets around install, start and stop. Updates not yet written are merged (the latest of
// each wins), so a burst of quick hooks costs a few writes, not one per change. A workload status
// equal to the one last written is not written again: a charm that sets the same status in every
// update-status costs no request.
import type { AgentApi } from '../api-client.js';

export interface StatusInput {
  current: string;
  message?: string;
  data?: Record<string, string | number | boolean>;
}

export interface StatusUpdate {
  agent?: StatusInput;
  workload?: StatusInput;
}

const keyOf = (s: StatusInput) => JSON.stringify([s.current, s.message ?? '', s.data ?? {}]);

export class StatusReporter {
  private pending: StatusUpdate = {};
  private worker?: Promise<void>;
  private written?: string;
  /** The workload status last handed to the API (or known from state): unchanged ones are dropped. */
  private workloadWritten?: string;
  private failure?: unknown;

  constructor(
    private readonly api: AgentApi,
    private readonly unit: string,
  ) {}

  set(update: StatusUpdate): void {
    if (update.agent) {
      // The agent status already written (or about to be) needs no second write.
      if (keyOf(update.agent) === this.written && !this.pending.agent) delete update.agent;
      else this.pending.agent = update.agent;
    }
    if (update.workload) {
      if (keyOf(update.workload) === this.workloadWritten && !this.pending.workload) delete update.workload;
      else this.pending.workload = update.workload;
    }
    this.worker ??= this.drain().finally(() => {
      this.worker = undefined;
    });
  }

  /** The workload status state holds, as the view says, until this reporter writes one itself. */
  knowWorkload(workload: StatusInput): void {
    if (this.workloadWritten === undefined && !this.pending.workload && !this.worker) this.workloadWritten = keyOf(workload);
  }

  /** Resolves once everything set so far is written; throws if a write failed. */
  async flush(): Promise<void> {
    while (this.worker) await this.worker;
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
  }

  private async drain(): Promise<void> {
    while (this.pending.agent || this.pending.workload) {
      const update = this.pending;
      this.pending = {};
      // Counted as written once taken: a later equal set must not be dropped in favour of an
      // older value still on its way, nor sent twice.
      if (update.workload) this.workloadWritten = keyOf(update.workload);
      try {
        await this.api.call('set-unit-status', { unit: this.unit, ...update });
        if (update.agent) this.written = keyOf(update.agent);
      } catch (e) {
        this.failure = e;
        this.written = undefined;
        this.workloadWritten = undefined;
      }
    }
  }
}
