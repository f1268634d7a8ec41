// The machine agent's entry point, bundled by esbuild as machine-agent.js with
// hook-tools/hook-tool.bash beside it (the bundle must ship that file at that relative path): into
// the data dir by the local controller (shared/provider/local/agent-build.ts), into a tarball for
// EC2 instances (infra/agent-bundle.ts).
import { fileURLToPath } from 'node:url';
import { ConfigError, configFromEnv, scrubCredential } from './config.js';
import { MachineAgent } from './machine/machine-agent.js';
import { signalHookGroups } from './uniter/hook-groups.js';
import { errorStack } from '#shared/domain/errors.js';

let config;
try {
  config = configFromEnv(process.env);
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  process.stderr.write(`ERROR ${e.message}\n`);
  process.exit(2);
}
scrubCredential(process.env);

const agent = new MachineAgent({
  config,
  toolScript: fileURLToPath(new URL('./hook-tools/hook-tool.bash', import.meta.url)),
});
process.on('SIGTERM', () => agent.stop());
process.on('SIGINT', () => agent.stop());
// No hook outlives the agent that ran it, whatever way it exits (a SIGKILL excepted: then the
// next agent on this machine kills them, agent/uniter/hook-groups.ts).
process.on('exit', () => signalHookGroups('SIGKILL'));

try {
  const outcome = await agent.run();
  process.stdout.write(`machine agent stopped: ${outcome}\n`);
  process.exit(0);
} catch (e) {
  process.stderr.write(`machine agent failed: ${errorStack(e)}\n`);
  process.exit(1);
}
