// deploy -n and add-unit -n return once the first units are added; the API adds the rest in the
// background (shared/domain/plans/background-units.ts). Juju prints nothing of units, but a call
// that returns before its units exist says so, and where to watch them come.
export const remainingUnitsNotice = (application: string, remaining: number) =>
  `adding ${remaining} more units of ${application} in the background; status shows them as they are added\n`;
