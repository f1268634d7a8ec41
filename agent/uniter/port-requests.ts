// A hook's open-port and close-port requests, checked as Juju 3.6's port range recorder checks
// them (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/runner/context/ports.go):
// a range equal to one already open (or already requested) changes nothing; one that overlaps
// another without being equal to it is refused, `cannot open 80-90/tcp (unit "app/0"): port
// range conflicts with 85/tcp (unit "app/0") requested earlier`; opening a range cancels its
// pending close, and closing one its pending open. drover opens ports for the whole unit, so
// every request is for all endpoints, and it checks against this unit's ranges (Juju's machine
// check also covers the other units on the machine: the controller refuses those at commit).
import { formatPortRange, parsePortRange, portRangesOverlap, type PortRange } from '#shared/domain/port-ranges.js';
import type { PortChange } from '#shared/domain/plans/unit-ports.js';

const sameRange = (a: PortRange, b: PortRange) => a.protocol === b.protocol && a.from === b.from && a.to === b.to;

export class PortRequests {
  private readonly opened: PortRange[];
  private pendingOpen: PortRange[] = [];
  private pendingClose: PortRange[] = [];

  /** `opened`: the unit's ranges as state last said, in canonical spelling. */
  constructor(
    private readonly unitName: string,
    opened: string[],
  ) {
    this.opened = opened.map(parsePortRange);
  }

  /** Throws Juju's refusal for a range that conflicts; returns quietly when there is nothing to do. */
  request(action: 'open' | 'close', text: string): void {
    const range = parsePortRange(text);
    const [mine, other] = action === 'open' ? [this.pendingOpen, this.pendingClose] : [this.pendingClose, this.pendingOpen];
    const cancelled = other.findIndex((r) => sameRange(r, range));
    if (cancelled !== -1) other.splice(cancelled, 1);
    const refuse = (existing: PortRange, earlier: boolean) =>
      new Error(
        `cannot ${action} ${formatPortRange(range)} (unit "${this.unitName}"): port range conflicts with ` +
          `${formatPortRange(existing)} (unit "${this.unitName}")${earlier ? ' requested earlier' : ''}`,
      );
    for (const existing of mine) {
      if (!portRangesOverlap(range, existing)) continue;
      if (sameRange(range, existing)) return; // already requested
      throw refuse(existing, true);
    }
    for (const existing of this.opened) {
      if (!portRangesOverlap(range, existing)) continue;
      if (sameRange(range, existing)) {
        if (action === 'open') return; // already open
        continue; // closing an open range: the request stands
      }
      throw refuse(existing, false);
    }
    // Closing with nothing open is a no-op.
    if (action === 'close' && this.opened.length === 0) return;
    mine.push(range);
  }

  /** The unit's ranges with this hook's requests applied: what opened-ports shows. */
  openRanges(): string[] {
    const open = this.opened.filter((r) => !this.pendingClose.some((c) => sameRange(c, r)));
    for (const r of this.pendingOpen) if (!open.some((o) => sameRange(o, r))) open.push(r);
    return open.map(formatPortRange);
  }

  /** What the hook's commit changes. */
  changes(): PortChange[] {
    return [
      ...this.pendingOpen.map((r) => ({ action: 'open' as const, range: formatPortRange(r) })),
      ...this.pendingClose.map((r) => ({ action: 'close' as const, range: formatPortRange(r) })),
    ];
  }
}
