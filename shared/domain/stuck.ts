/**
 * How long an entity may be Dying (or a machine in provisioning error) before `drover stuck`
 * lists it and the watchdog counts it: ten minutes, long enough for a busy model's cleanups and
 * hooks, short enough that an operator hears of a removal that will not finish on its own.
 * The stack's `drover:stuckAfterSeconds` and the local controller's option override it.
 */
export const DEFAULT_STUCK_AFTER_SECONDS = 600;
