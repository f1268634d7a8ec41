// The command table (cli/command-modules.ts): a run that names a command loads its module alone,
// so each module's names must be exactly the commands and aliases it registers.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES, modulesFor } from '../../../cli/command-modules.js';
import type { Cli } from '../../../cli/context.js';

const moduleOf = (name: string) => COMMAND_MODULES.find((m) => m.names.includes(name));

describe('the command modules', () => {
  it('name exactly the commands and aliases each one registers, each name once', async () => {
    for (const module of COMMAND_MODULES) {
      const program = new Command('drover');
      (await module.load())(program, {} as Cli);
      const registered = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
      expect(registered.sort(), module.names[0]).toEqual([...module.names].sort());
    }
    const names = COMMAND_MODULES.flatMap((m) => m.names);
    expect(new Set(names).size).toBe(names.length);
  });

  it('are loaded one for a run that names a command, past -m and its value; all for help, an unknown command or an option first', () => {
    expect(modulesFor(['status', '--format', 'json'])).toEqual([moduleOf('status')]);
    expect(modulesFor(['show-unit', 'mysql/0'])).toEqual([moduleOf('show-unit')]);
    expect(modulesFor(['-m', 'local:staging', 'deploy', './charm'])).toEqual([moduleOf('deploy')]);
    expect(modulesFor(['--model', 'staging', 'destroy-unit', 'a/0'])).toEqual([moduleOf('remove-unit')]);
    expect(modulesFor(['--model=staging', 'relate', 'a', 'b'])).toEqual([moduleOf('relate')]);
    expect(modulesFor(['-mstaging', 'stuck'])).toEqual([moduleOf('stuck')]);
    for (const argv of [[], ['help'], ['help', 'status'], ['--help'], ['-h'], ['frobnicate'], ['-m', 'x']])
      expect(modulesFor(argv)).toBe(COMMAND_MODULES);
  });
});
