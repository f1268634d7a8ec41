// The controller process's side of its supervisor (embedded/supervisor-main.ts). The supervisor
// starts the controller with a Node IPC channel: the controller says on it when it serves, so the
// supervisor tells a controller that never came up from one that crashed later; and the kernel
// closes it when the supervisor dies, however it dies (kill -9 included), so the controller learns
// it is no longer supervised and stops cleanly rather than run on with no one to restart it.
// A controller started otherwise (`npm start`) has no channel, and all of this does nothing.

/** What the controller sends once it serves its API. */
export const READY_MESSAGE = 'drover-controller-ready';

/** Tells the supervisor, if there is one, that the controller serves. */
export function tellSupervisorReady(): void {
  if (process.connected) process.send?.(READY_MESSAGE);
}

/** Runs `stop` once when the supervisor this controller was started by goes away. */
export function onSupervisorGone(stop: () => void): void {
  if (!process.send) return;
  if (!process.connected) return stop();
  process.once('disconnect', stop);
}
