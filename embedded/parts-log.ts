// What happens to the local controller's own parts (its database restarted, the controller process
// itself restarted by its supervisor) is said where an operator looks: the controller's log (its
// logger writes to standard output, which `bootstrap local` sends to controller.log) and debug-log,
// where an operator looking at misbehaving units looks.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { LogSink } from '#shared/logs/log-sink.js';

export interface PartsLog {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export function partsLog(logger: Pick<Logger, 'info' | 'warn' | 'error'>, logs: LogSink): PartsLog {
  const say =
    (level: 'INFO' | 'WARNING' | 'ERROR') =>
    (message: string, details?: Record<string, unknown>): void => {
      if (level === 'ERROR') logger.error(message, details ?? {});
      else if (level === 'WARNING') logger.warn(message, details ?? {});
      else logger.info(message, details ?? {});
      void logs
        .append([{ entity: 'controller', time: new Date().toISOString(), level, module: 'drover.supervisor', message }])
        .catch(() => undefined);
    };
  return { info: say('INFO'), warn: say('WARNING'), error: say('ERROR') };
}
