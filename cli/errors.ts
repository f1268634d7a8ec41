// How a command fails. The CLI prints every failure as `ERROR <message>` on stderr, never a stack
// trace: exit 2 for usage errors (as Juju's Init errors), 1 for everything else.

/** A failure the user can act on; `message` says what was wrong and what to do. */
export class CliError extends Error {
  constructor(
    message: string,
    /** Already reported (e.g. per-entity lines of a bulk removal): exit 1 without an ERROR line. */
    readonly silent = false,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The command line itself was wrong: exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The controller refused the request: its error code and message, as the API sent them. */
export class ApiError extends CliError {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Bulk removals have already printed a line per entity; only the exit code is left to give. */
export const silentFailure = () => new CliError('', true);

/**
 * Exit with a command's own status, having printed its output (Juju's RcPassthroughError:
 * `drover exec` on one unit exits as the command did).
 */
export class ExitCode extends CliError {
  constructor(readonly code: number) {
    super('', true);
    this.name = 'ExitCode';
  }
}
