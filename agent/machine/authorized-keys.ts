// The model's SSH keys on this machine: Juju's authenticationworker
// (https://github.com/juju/juju/tree/3.6/worker/authenticationworker) keeps the model's
// `authorized-keys` in the ubuntu user's ~/.ssh/authorized_keys, marking each with a `Juju:`
// comment so it replaces only its own and leaves the user's other keys. The machine agent calls
// this on every view it reads, which a model-config change hints at once (and the resync covers):
// the file is written only when the model's keys in it differ from the model's.
// On EC2 the file is ~ubuntu's, written by the root agent and given to the home's owner; on the
// local controller it is in the machine directory, the machine's home (cli/ssh/local-machine.ts).
import { chownSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { holdsModelKeys, mergeAuthorizedKeysFile } from '#shared/domain/ssh-keys.js';

/** Where the keys go: DROVER_AUTHORIZED_KEYS_FILE, else the machine directory's (local), else ~ubuntu's (EC2). */
export function authorizedKeysFileFrom(env: NodeJS.ProcessEnv): string {
  if (env.DROVER_AUTHORIZED_KEYS_FILE) return env.DROVER_AUTHORIZED_KEYS_FILE;
  if (env.DROVER_MACHINE_DIR) return join(env.DROVER_MACHINE_DIR, '.ssh', 'authorized_keys');
  return '/home/ubuntu/.ssh/authorized_keys';
}

const readOrEmpty = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
};

/** Installs the model's keys; true when the file changed. */
export function installAuthorizedKeys(file: string, modelKeys: string | undefined): boolean {
  const existing = readOrEmpty(file);
  // Only a change of the model's keys rewrites the file: the user's own lines stay as they are.
  if (holdsModelKeys(existing, modelKeys)) return false;
  const wanted = mergeAuthorizedKeysFile(existing, modelKeys);
  const sshDir = dirname(file);
  mkdirSync(sshDir, { recursive: true, mode: 0o700 });
  // sshd refuses keys others may write: owner-only, written whole and renamed into place.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, wanted, { mode: 0o600 });
  if (process.getuid?.() === 0) {
    // The root agent on EC2: the keys are the home's owner's (ubuntu), as sshd requires.
    const home = statSync(dirname(sshDir));
    chownSync(sshDir, home.uid, home.gid);
    chownSync(tmp, home.uid, home.gid);
  }
  renameSync(tmp, file);
  return true;
}
