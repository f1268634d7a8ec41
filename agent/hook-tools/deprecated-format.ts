// The `--format` flag that relation-set, juju-log, open-port and close-port still accept though
// they print nothing: Juju warns on stderr, without a newline, and carries on
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/jujuc/relation-set.go, Run).
import { stringFlag } from './flags.js';
import type { ToolIO } from './tool-context.js';

export const deprecatedFormatFlag = stringFlag('deprecatedFormat', 'format');

export function warnDeprecatedFormat(flags: Record<string, string | boolean>, tool: string, io: ToolIO): void {
  if (typeof flags.deprecatedFormat === 'string' && flags.deprecatedFormat !== '') {
    io.stderr = `${io.stderr ?? ''}--format flag deprecated for command "${tool}"`;
  }
}
