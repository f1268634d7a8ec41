// The command line of `npm run compat:jubilant -- <jubilant source> [options]`.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '#shared/domain/errors.js';

export interface CompatOptions {
  /** A checkout (or `git archive`) of canonical/jubilant: jubilant/, tests/integration/, pyproject.toml. */
  jubilantSource: string;
  /** canonical/operator: a git directory (bare or not), whose tags give the ops version the charms pin, or a source tree. */
  opsSource: string;
  /** Seconds each test may take, its fixtures' setup and teardown included (pytest-timeout). */
  timeoutSeconds: number;
  /** pytest's -k: only the tests whose names match. */
  keyword?: string;
  /** Leave the controller's data directory and the work directory behind, for a look afterwards. */
  keep: boolean;
  /** Where to write every failure in full (markdown); nothing when absent. */
  detailsFile?: string;
  /** The Python that runs pytest and the charms' dispatch: Debian's, with python3-pytest and friends. */
  python: string;
}

export const USAGE = `usage: npm run compat:jubilant -- <jubilant source> [--ops <operator git dir or source>] [--timeout <seconds>] [-k <expr>] [--details <file>] [--keep] [--python <python3>]

Runs jubilant's integration tests (tests/integration) against a fresh local drover controller, with
"juju" on PATH running drover, and prints a table: test, result, the first line of the failure.
--ops defaults to $DROVER_OPS_SOURCE.`;

export class UsageError extends Error {}

const DEFAULT_TIMEOUT_SECONDS = 300;

export function parseCompatArguments(argv: string[], env: Record<string, string | undefined>): CompatOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ops: { type: 'string' },
        timeout: { type: 'string' },
        k: { type: 'string', short: 'k' },
        keep: { type: 'boolean', default: false },
        details: { type: 'string' },
        python: { type: 'string' },
      },
    });
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    throw new UsageError(positionals.length ? `one jubilant source, not ${positionals.length}` : 'no jubilant source given');
  const jubilantSource = resolve(positionals[0]!);
  for (const needed of ['jubilant/__init__.py', 'tests/integration/conftest.py', 'pyproject.toml']) {
    if (!existsSync(join(jubilantSource, needed))) throw new UsageError(`${jubilantSource} is not jubilant's source: it has no ${needed}`);
  }
  const ops = values.ops ?? env.DROVER_OPS_SOURCE;
  if (!ops) throw new UsageError('no ops source: give canonical/operator with --ops <dir> or DROVER_OPS_SOURCE');
  const opsSource = resolve(ops);
  if (!existsSync(opsSource)) throw new UsageError(`--ops ${opsSource}: no such directory`);
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds <= 0)
    throw new UsageError(`--timeout ${values.timeout}: a whole number of seconds, more than 0`);
  return {
    jubilantSource,
    opsSource,
    timeoutSeconds,
    ...(values.k !== undefined ? { keyword: values.k } : {}),
    keep: values.keep ?? false,
    ...(values.details !== undefined ? { detailsFile: resolve(values.details) } : {}),
    python: values.python ?? '/usr/bin/python3',
  };
}
