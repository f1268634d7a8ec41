// Tools whose subject drover does not have, failing in Juju's words for that case:
// - credential-get: Juju hands cloud credentials only to trusted applications (`juju trust`); the
//   uniter facade answers everything else "permission denied", annotated by the tool
//   (juju/juju worker/uniter/runner/jujuc/credential-get.go). drover has no trust.
// - juju-reboot: drover's agents cannot reboot their machine yet; a charm that needs it learns so
//   at once rather than waiting for a reboot that never comes.
import { boolFlag, parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { checkEmpty, runtimeError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

export const credentialGet: ToolCommand = {
  name: 'credential-get',
  async run(_ctx, args) {
    const { positional } = parseFlags(args, outputFlags);
    checkEmpty(positional);
    throw runtimeError('cannot access cloud credentials: permission denied');
  },
};

export const jujuReboot: ToolCommand = {
  name: 'juju-reboot',
  async run(_ctx, args) {
    const { positional } = parseFlags(args, [boolFlag('now', 'now')]);
    checkEmpty(positional);
    throw runtimeError('juju-reboot is not supported by drover: the agent cannot reboot its machine');
  },
};
