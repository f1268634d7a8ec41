// What a hook tool may see and do: the hook's sandbox (agent/uniter/hook-context.ts implements
// it). charms-in-action: "Within the context of a single hook execution, the above tools present
// a sandboxed view of the system".
import type { ConfigValue } from '../../shared/domain/entities.js';
import type { LogLevel } from '../../shared/logs/log-sink.js';

export interface ToolRelation {
  id: number;
  /** This unit's endpoint name: `db` in `db:3`. */
  endpoint: string;
  /** The application on the other side (this one, for a peer relation). */
  remoteApplication: string;
}

export interface WorkloadStatus {
  status: string;
  message: string;
}

export interface ToolContext {
  readonly unitName: string;
  /** In relation hooks: the hook's relation id, the default for -r. */
  readonly hookRelationId?: number;
  /** In relation hooks other than -broken: the remote unit, the default for relation-get. */
  readonly remoteUnit?: string;
  /** The relations this unit has joined. */
  relations(): ToolRelation[];
  /** The remote units this unit knows in the relation, as relation-list prints them. */
  relationUnits(relationId: number): string[];
  /** A unit's settings; the first read is remembered for the rest of the hook. */
  readSettings(relationId: number, unit: string): Promise<Record<string, string>>;
  /** Buffered; written only if the hook exits 0. An empty value deletes the key. */
  setSettings(relationId: number, changes: Record<string, string>): void;
  config(): { values: Record<string, ConfigValue>; options: string[] };
  address(kind: 'private' | 'public'): string;
  /** Canonical ranges (`80/tcp`); buffered like relation-set. */
  changePort(action: 'open' | 'close', range: string): void;
  /** Applied at once: a failing hook does not undo it (reference §4.5). */
  setStatus(status: WorkloadStatus): Promise<void>;
  status(): WorkloadStatus;
  log(level: LogLevel, message: string): void;
  /** is-leader: true promises leadership for 30 s more (shared/domain/leadership.ts). */
  isLeader(): Promise<boolean>;
  /** leader-get: the application's leader settings (with this hook's own leader-set calls). */
  leaderSettings(): Promise<Record<string, string>>;
  /** leader-set: buffered like relation-set; throws "cannot write settings: not the leader". */
  setLeaderSettings(changes: Record<string, string>): Promise<void>;
}

export interface ToolIO {
  /** The hook's working directory: relative `-o` and `--file` paths are resolved against it. */
  cwd: string;
  /** Standard input, sent only by tools that read it (`relation-set --file -`). */
  stdin?: string;
}

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}
