// A machine agent and its unit agents, reduced to their state transitions, for the crash matrix.
// It makes the same agent API calls (functions/api/agent-routes.ts, through runAgentRoute and its
// authorization) in the order the real agents make them (agent/uniter/steps/,
// agent/machine/*), but runs no hook processes: a hook is a counter in the harness, and what a
// hook writes (relation-set in relation-joined) is committed with commit-hook as the uniter does.
// Real agent processes cost seconds each; the matrix runs the flow hundreds of times.
//
// What survives a kill is what the real agents keep on disk: for each unit, whether install and
// start ran and which relations it has joined (agent/uniter/local-state.ts). A hook runs between
// two local saves with no I/O in between, as in the uniter, so a kill can only fall before a hook
// (it runs after the restart) or after it (it is remembered): install and start run once.
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { runAgentRoute, type AgentContext } from '../../functions/api/agent-routes.js';
import type { AgentOperation, AgentRequestOf } from '#shared/api/agent-requests.js';
import type { Relation, Unit } from '#shared/domain/entities.js';
import { isDroverError } from '#shared/domain/errors.js';
import { isQueueMissing } from '#shared/messaging/machine-queues.js';

/** What one unit agent keeps on disk. */
export interface UnitDisk {
  installed: boolean;
  started: boolean;
  /** Relations whose relation-joined hook ran (and committed its settings). */
  joined: string[];
}

/** One machine's disk: it outlives the agent process, not the instance. */
export type AgentDisk = Map<string, UnitDisk>;

/** What the harness observes of the hooks: runs per `<unit> <hook>`. */
export type HookRuns = Map<string, number>;

interface View {
  machine: { id: string; life: string };
  units: Unit[];
  relations: Relation[];
  applications: { name: string; life: string }[];
}

export class ModelAgent {
  /** Hints received (and deleted) from the machine's queue, in order. */
  readonly hints: string[] = [];

  constructor(
    private readonly ctx: AgentContext,
    private readonly sqs: SQSClient,
    readonly queueUrl: string,
    private readonly disk: AgentDisk,
    private readonly hookRuns: HookRuns,
  ) {}

  private call<O extends AgentOperation>(op: O, body: AgentRequestOf<O>): Promise<unknown> {
    return runAgentRoute(op, this.ctx, body);
  }

  /** Acting is due regardless of hints: a new (or restarted) agent reads everything first. */
  private resyncDue = true;

  /** The hint receiver's one poll: take what is there, delete it, then act (agent/machine/hint-receiver.ts). Returns the count. */
  async receiveHints(waitSeconds = 0): Promise<number> {
    try {
      const out = await this.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: this.queueUrl, WaitTimeSeconds: waitSeconds, MaxNumberOfMessages: 10 }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) return 0;
      await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
      this.hints.push(...messages.map((m) => m.Body ?? ''));
      return messages.length;
    } catch (e) {
      // The machine's queue goes with the machine; the agent is about to be stopped.
      if (!isQueueMissing(e)) throw e;
      return 0;
    }
  }

  /**
   * One poll of the queue and, if it brought hints (or `resync`: the agent's periodic resync),
   * one pass of every unit's agent and the machine agent over a fresh view: level-triggered, the
   * hints only say when to look. Returns false once the machine is gone from state.
   */
  async turn(options: { resync?: boolean; waitSeconds?: number } = {}): Promise<boolean> {
    const hinted = (await this.receiveHints(options.waitSeconds)) > 0;
    if (!hinted && !options.resync && !this.resyncDue) return true;
    let view: View;
    try {
      view = (await this.call('view', {})) as View;
    } catch (e) {
      if (isDroverError(e, 'not-found')) return false;
      throw e;
    }
    for (const unit of [...view.units].sort((a, b) => a.name.localeCompare(b.name))) await this.unitTurn(view, unit);
    if (view.machine.life === 'dying' && view.units.length === 0) await this.call('machine-dead', {});
    this.resyncDue = false;
    return true;
  }

  private diskOf(unit: string): UnitDisk {
    let disk = this.disk.get(unit);
    if (!disk) this.disk.set(unit, (disk = { installed: false, started: false, joined: [] }));
    return disk;
  }

  private runHook(unit: string, hook: string, done: (disk: UnitDisk) => void): void {
    const key = `${unit} ${hook}`;
    this.hookRuns.set(key, (this.hookRuns.get(key) ?? 0) + 1);
    done(this.diskOf(unit));
  }

  private async unitTurn(view: View, unit: Unit): Promise<void> {
    const name = unit.name;
    if (unit.life === 'dead') {
      await this.call('remove-unit', { unit: name });
      return;
    }
    const disk = this.diskOf(name);
    const relation = (key: string) => view.relations.find((r) => r.key === key);
    if (unit.life === 'dying') {
      for (const key of unit.scopes) await this.call('leave-scope', { unit: name, relation: key });
      await this.call('unit-dead', { unit: name });
      return;
    }
    if (!disk.installed) {
      await this.call('set-unit-status', { unit: name, agent: { current: 'executing', message: 'running install hook' } });
      this.runHook(name, 'install', (d) => (d.installed = true));
    }
    if (!disk.started) {
      await this.call('set-unit-status', { unit: name, agent: { current: 'executing', message: 'running start hook' } });
      this.runHook(name, 'start', (d) => (d.started = true));
    }
    if (unit.agentStatus.current !== 'idle') await this.call('set-unit-status', { unit: name, agent: { current: 'idle' } });
    if (view.applications.find((a) => a.name === unit.application)?.life === 'dying') {
      await this.call('destroy-unit', { unit: name });
      return;
    }
    // A subordinate with no Alive relation to its principal's application sets itself Dying.
    if (unit.principal !== undefined) {
      const { result } = (await this.call('subordinate-dying', { unit: name })) as { result: string };
      if (result === 'dying') return;
    }
    const application = view.applications.find((a) => a.name === unit.application) as { relations?: string[] } | undefined;
    for (const key of application?.relations ?? []) {
      const r = relation(key);
      if (r?.life === 'alive' && !unit.scopes.includes(key)) {
        await this.call('enter-scope', { unit: name, relation: key, settings: { 'private-address': name } });
      }
    }
    for (const key of unit.scopes) {
      const r = relation(key);
      if (r?.life !== 'alive') await this.call('leave-scope', { unit: name, relation: key });
    }
    // relation-joined: the unit's settings, committed as the hook's changes.
    const scopes = (await this.call('view', {})) as View;
    const now = scopes.units.find((u) => u.name === name);
    for (const key of now?.scopes ?? []) {
      const r = scopes.relations.find((x) => x.key === key);
      if (!r || r.life !== 'alive' || disk.joined.includes(key)) continue;
      await this.call('commit-hook', { unit: name, settings: [{ relationId: r.id, changes: { joined: name } }], ports: [] });
      this.runHook(name, `${key} relation-joined`, (d) => d.joined.push(key));
    }
  }
}
