// A stand-in machine agent for provider and provisioner tests: it stays up and proves it is alive
// by rewriting `heartbeat` in its machine directory. It reports what it was started with (never the
// credential itself, only whether the file matches the environment), and exits on SIGTERM unless
// FAKE_AGENT_IGNORE_SIGTERM=1, which lets tests check the SIGKILL fallback.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.DROVER_MACHINE_DIR;
if (!dir) {
  console.error('fake agent: DROVER_MACHINE_DIR is not set');
  process.exit(2);
}

function beat() {
  const credentialFile = process.env.DROVER_AGENT_CREDENTIAL_FILE ?? '';
  const beat = {
    pid: process.pid,
    at: new Date().toISOString(),
    machineId: process.env.DROVER_MACHINE_ID,
    controllerId: process.env.DROVER_CONTROLLER_ID,
    apiUrl: process.env.DROVER_API_URL,
    queueUrl: process.env.DROVER_QUEUE_URL,
    credentialFileMatches: readFileSync(credentialFile, 'utf8') === process.env.DROVER_AGENT_CREDENTIAL,
    inheritedSecret: process.env.DROVER_TEST_CONTROLLER_SECRET ?? null,
  };
  // Renamed into place, so a test never reads half a heartbeat.
  writeFileSync(join(dir, 'heartbeat.tmp'), JSON.stringify(beat));
  renameSync(join(dir, 'heartbeat.tmp'), join(dir, 'heartbeat'));
}

console.log(`fake agent ${process.pid} for machine ${process.env.DROVER_MACHINE_ID} started`);
beat();
setInterval(beat, 100);
process.on('SIGTERM', () => {
  if (process.env.FAKE_AGENT_IGNORE_SIGTERM === '1') {
    console.log('fake agent: ignoring SIGTERM');
    return;
  }
  console.log('fake agent: SIGTERM, exiting');
  process.exit(0);
});
