// A stand-in machine agent for provider and provisioner tests: it stays up and proves it is alive
// by rewriting `heartbeat` in its machine directory. It reports what it was started with: never
// the credential itself, only its digest (read from standard input, as the real agent does under
// DROVER_AGENT_CREDENTIAL_STDIN=1). It exits on SIGTERM unless FAKE_AGENT_IGNORE_SIGTERM=1, which
// lets tests check the SIGKILL fallback. FAKE_AGENT_EXIT_CODE=<n> makes it exit with n right
// after starting (a crash-looping agent); FAKE_AGENT_CHILD=1 makes it start a long `sleep` in its
// process group (what a killed agent leaves behind), whose pid it reports.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.DROVER_MACHINE_DIR;
if (!dir) {
  console.error('fake agent: DROVER_MACHINE_DIR is not set');
  process.exit(2);
}
const credential = process.env.DROVER_AGENT_CREDENTIAL_STDIN === '1' ? readFileSync(0, 'utf8').trim() : '';
console.log(`fake agent ${process.pid} for machine ${process.env.DROVER_MACHINE_ID} started`);
if (process.env.FAKE_AGENT_EXIT_CODE !== undefined) {
  console.log('fake agent: exiting at once, as asked');
  process.exit(Number(process.env.FAKE_AGENT_EXIT_CODE));
}
const child = process.env.FAKE_AGENT_CHILD === '1' ? spawn('sleep', ['1000'], { stdio: 'ignore' }) : undefined;

function beat() {
  const beat = {
    pid: process.pid,
    at: new Date().toISOString(),
    machineId: process.env.DROVER_MACHINE_ID,
    controllerId: process.env.DROVER_CONTROLLER_ID,
    apiUrl: process.env.DROVER_API_URL,
    queueUrl: process.env.DROVER_QUEUE_URL,
    credentialDigest: credential ? createHash('sha256').update(credential).digest('hex') : null,
    inheritedSecret: process.env.DROVER_TEST_CONTROLLER_SECRET ?? null,
    childPid: child?.pid ?? null,
  };
  // Renamed into place, so a test never reads half a heartbeat.
  writeFileSync(join(dir, 'heartbeat.tmp'), JSON.stringify(beat));
  renameSync(join(dir, 'heartbeat.tmp'), join(dir, 'heartbeat'));
}

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
