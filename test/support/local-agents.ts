// Test harness for the local provider: a temporary dataDir per test, the fake agent as the agent
// command, and a cleanup that kills every agent ever recorded under the dataDir, whichever
// controller started it, so no test leaves processes behind.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalProvider, type LocalProviderOptions } from '#shared/provider/local/local-provider.js';
import { listMachineDirs, readRecord } from '#shared/provider/local/machine-dir.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { waitFor } from './wait-for.js';

export const FAKE_AGENT = fileURLToPath(new URL('./fake-agent.mjs', import.meta.url));

export const fakeAgentCommand = () => [process.execPath, FAKE_AGENT];

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'drover-local-'));
}

export function localProvider(dataDir: string, options: Partial<LocalProviderOptions> = {}): LocalProvider {
  return new LocalProvider({ dataDir, agentCommand: fakeAgentCommand(), stopGraceMs: 2_000, ...options });
}

/** Every agent process recorded under dataDir that is still running. */
export function liveAgentPids(dataDir: string): number[] {
  return listMachineDirs(dataDir)
    .map(readRecord)
    .filter((r) => r !== undefined && isProcessAlive(r))
    .map((r) => r!.pid);
}

/** What the fake agent last wrote to its machine directory, if it has written yet. */
export function heartbeatOf(dir: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'heartbeat'), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The digest of the credential the fake agent now running in `dir` read on its standard input. */
export async function agentCredentialDigest(dir: string): Promise<string | null | undefined> {
  const beat = await waitFor(
    'a heartbeat from the agent now running',
    () => heartbeatOf(dir),
    (b) => b !== undefined && b.pid === readRecord(dir)?.pid,
  );
  return beat?.credentialDigest as string | null | undefined;
}

export const digestOf = (credential: string) => createHash('sha256').update(credential).digest('hex');

/** SIGKILLs every recorded agent (and its process group), then removes the dataDir. */
export async function killAllAgents(dataDir: string): Promise<void> {
  for (const pid of liveAgentPids(dataDir)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  const deadline = Date.now() + 5_000;
  while (liveAgentPids(dataDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  rmSync(dataDir, { recursive: true, force: true });
}
