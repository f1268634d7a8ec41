// What one running task accumulates for its outcome: action-set results, action-fail, and its
// action-log calls (sent at once, in order). Juju's context keeps the same
// (worker/uniter/runner/context/context.go: UpdateActionResults, SetActionFailed, LogActionMessage).
import type { AgentApi } from '../api-client.js';
import type { ActionToolContext } from '../hook-tools/tool-context.js';

type Results = Record<string, unknown>;

const isMap = (v: unknown): v is Results => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ActionState implements ActionToolContext {
  readonly results: Results = {};
  failure?: string;
  private logged: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly task: { id: string; unit: string; parameters: Results },
    private readonly api: AgentApi,
  ) {}

  params(): Results {
    return structuredClone(this.task.parameters);
  }

  setResults(values: [path: string[], value: string][]): void {
    for (const [path, value] of values) {
      let map = this.results;
      for (const key of path.slice(0, -1)) {
        // A key set to a value before becomes a map: the later call wins, as in Juju's addValueToMap.
        // Own keys only: `constructor.x` is a result named constructor, not Object's.
        const inner = Object.hasOwn(map, key) ? map[key] : undefined;
        map = isMap(inner) ? inner : (map[key] = {});
      }
      map[path[path.length - 1]!] = value;
    }
  }

  log(message: string): Promise<void> {
    // In order, even if the charm backgrounds its action-log calls.
    const sent = this.logged.then(() => this.api.call('log-task', { unit: this.task.unit, task: this.task.id, message }));
    this.logged = sent.catch(() => undefined);
    return sent.then(() => undefined);
  }

  fail(message: string): void {
    this.failure = message;
  }

  /** Waits for the action-log calls still on their way. */
  async settled(): Promise<void> {
    await this.logged;
  }
}
