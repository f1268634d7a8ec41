// The machine agent's view (the agent API's `view`): its machine, the units on it and what their
// hooks may see. One read serves the machine agent and every unit agent on the machine; it is
// read again only when a hint (or the periodic resync) says something changed, or after an agent
// changed state itself.
import type { Application, Machine, Relation, Unit } from '#shared/domain/entities.js';
import type { LeadershipView } from '#shared/domain/leadership.js';
import { MAX_VIEW_READ_AHEAD, type AgentRequestOf } from '#shared/api/agent-requests.js';

export interface AgentView {
  model: string;
  /** JUJU_MODEL_UUID; optional so an agent keeps working against a controller that predates it. */
  modelUuid?: string;
  machine: Omit<Machine, 'agentCredentialHash'>;
  units: Unit[];
  applications: Application[];
  relations: Relation[];
  /** The model's explicit `model-config` settings (update-status-hook-interval). */
  modelConfig?: Record<string, string>;
  /** Each application's leadership (absent from a controller that predates it). */
  leadership?: LeadershipView[];
  /** Download URLs of the charm archives units on the machine still lack, by sha256 (short-lived). */
  charmDownloads?: Record<string, string>;
}

type Listener = (view: AgentView) => void;

/**
 * A view's request: the units and relations the last view showed, which the API reads with the
 * caller's machine, so a view whose units are unchanged costs one read (functions/api/agent-read-ahead.ts).
 */
export function viewRequest(last: AgentView | undefined): AgentRequestOf<'view'> {
  if (!last) return {};
  const units = last.units.map((u) => u.name);
  const relations = last.relations.map((r) => r.key);
  // A machine beyond the bound is read as it was before: its units first, then what they name.
  if (units.length > MAX_VIEW_READ_AHEAD || relations.length > MAX_VIEW_READ_AHEAD) return {};
  return { known: { units, relations } };
}

/**
 * The latest view, with coalesced refreshes: a caller of refresh() gets a view read after its
 * call began, and concurrent callers share one read.
 */
export class ViewSource {
  current?: AgentView;
  /** How many reads have completed: a change's outcome is applied only to the view it was made against. */
  generation = 0;
  private running?: Promise<AgentView>;
  private queued?: Promise<AgentView>;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly fetchView: () => Promise<AgentView>) {}

  /**
   * A change this agent made itself and knows the outcome of (a leadership claim's answer): applied
   * to the view it holds, rather than read back. A read already on its way may still bring the
   * state from before; the agent then acts on that as on any stale view, and the state decides.
   * `since` is the generation the change was made against, or undefined for an outcome no later
   * read can contradict: if a read completed meanwhile, its view may already hold what came after
   * the change (a refused claim's holder that has released the lease since), and the answer, older
   * than it, must not overwrite it; that view is kept as it is.
   */
  amend(change: (view: AgentView) => AgentView, since?: number): void {
    if (this.current && (since === undefined || this.generation === since)) this.current = change(this.current);
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  refresh(): Promise<AgentView> {
    if (this.queued) return this.queued;
    const previous = this.running;
    const slot: { promise?: Promise<AgentView> } = {};
    slot.promise = (async () => {
      await Promise.resolve(); // let `this.queued` be set first
      if (previous) await previous.catch(() => undefined);
      // From here on a new caller needs a read that starts after its call: queue another.
      if (this.queued === slot.promise) this.queued = undefined;
      const run = this.fetchView();
      this.running = run;
      try {
        const view = await run;
        this.current = view;
        this.generation++;
        for (const listener of [...this.listeners]) listener(view);
        return view;
      } finally {
        if (this.running === run) this.running = undefined;
      }
    })();
    this.queued = slot.promise;
    return slot.promise;
  }
}
