// How a hook tool fails, as juju/cmd does (https://github.com/juju/cmd/blob/master/cmd.go): bad
// flags or arguments are usage errors, exit 2; a failure while running is exit 1. Either way
// stderr says `ERROR <message>`.
export class ToolError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export const usageError = (message: string) => new ToolError(message, 2);
export const runtimeError = (message: string) => new ToolError(message, 1);

/** juju/cmd's CheckEmpty: leftover arguments are a usage error. */
export function checkEmpty(args: string[]): void {
  if (args.length > 0) throw usageError(`unrecognized args: [${args.map((a) => JSON.stringify(a)).join(' ')}]`);
}
