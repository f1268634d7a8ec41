// A hook's secret changes, held until it succeeds, as Juju's HookContext holds them
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/context/context.go,
// pendingSecretCreates and friends, committed by Flush): secret-add, secret-set, secret-remove,
// secret-grant and secret-revoke change nothing while the hook runs, and a failing hook's are
// dropped. What the tool must answer at once it still does: secret-add prints the URI the
// controller allocates up front (`secret-new-uri`, as Juju's CreateSecretURIs), and a change to a
// secret the unit may not manage is refused when called (`secret-info-get` asks the very check
// the change's route will). secret-get in the same hook reads the content it set.
// flush() sends them in order, before the hook's other changes (which may name the secret).
import type { AgentApi } from '../api-client.js';
import type { SecretToolOperation } from '../hook-tools/tool-context.js';

const HELD: ReadonlySet<SecretToolOperation> = new Set(['secret-add', 'secret-set', 'secret-remove', 'secret-grant', 'secret-revoke']);

type Body = Record<string, unknown>;

export class PendingSecrets {
  private readonly calls: { op: SecretToolOperation; body: Body }[] = [];
  /** Content this hook added or set, by the secret's first name in this hook (the URI for an added one). */
  private readonly content = new Map<string, Record<string, string>>();
  /** Another name (an added secret's label) for the same secret. */
  private readonly aliases = new Map<string, string>();
  /** Secrets this hook added or already checked it may change (by URI or label): added ones are not in state until it commits. */
  private readonly mine = new Set<string>();

  constructor(
    private readonly api: AgentApi,
    private readonly unit: string,
    private readonly isLeader: () => Promise<boolean>,
  ) {}

  get size(): number {
    return this.calls.length;
  }

  async call<T>(op: SecretToolOperation, body: Body): Promise<T> {
    if (!HELD.has(op)) {
      const own = op === 'secret-get' ? this.content.get(this.key(body.secret)) : undefined;
      if (own) return { content: own } as T;
      return this.api.call<T>(op, { unit: this.unit, ...body } as never);
    }
    if (op === 'secret-add') {
      // The controller checks again when it commits; a minion hears it now, as from Juju's tool.
      if (body.owner === 'application' && !(await this.isLeader())) throw new Error('this unit is not the leader');
      const { uri } = await this.api.call<{ uri: string }>('secret-new-uri', { unit: this.unit });
      this.calls.push({ op, body: { ...body, uri } });
      if (typeof body.label === 'string') this.aliases.set(body.label, uri);
      this.remember(uri, body.content);
      return { uri } as T;
    }
    const ref = this.key(body.secret);
    if (!this.mine.has(ref)) await this.api.call('secret-info-get', { unit: this.unit, secret: ref });
    this.calls.push({ op, body });
    this.remember(ref, op === 'secret-set' ? body.content : undefined);
    return {} as T;
  }

  /** Sends what the hook held, in the order it called. Only after the hook exited 0. */
  async flush(): Promise<void> {
    for (const { op, body } of this.calls) await this.api.call(op, { unit: this.unit, ...body } as never);
  }

  private key(ref: unknown): string {
    return this.aliases.get(String(ref)) ?? String(ref);
  }

  private remember(ref: string, content: unknown): void {
    this.mine.add(ref);
    if (content && typeof content === 'object') this.content.set(ref, content as Record<string, string>);
  }
}
