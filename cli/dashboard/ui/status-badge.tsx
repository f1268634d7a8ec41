// A status as icon, word and colour together, so it reads without colour.
import type { StatusValue } from '#shared/domain/status-document.js';
import { ICON, levelOf, type Level } from './severity.js';

export function Badge({ status, level }: { status: StatusValue | undefined; level?: Level }) {
  const l = level ?? levelOf(status);
  return (
    <span class={`badge level-${l}`} data-level={l}>
      <span aria-hidden="true">{ICON[l]}</span> {status?.current ?? 'unknown'}
    </span>
  );
}
