// Every change the page makes goes through here: it is shown as the command the CLI would run
// (`drover config mysql max-connections=5`) and sent only once the user confirms it; what the
// controller answered, or why it refused, is shown where the change was asked for
// (docs/dashboard.md, "Acting").
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { write } from './api.js';
import { errorMessage } from '#shared/domain/errors.js';

export interface Change<T = unknown> {
  /** The command the CLI would run for it, shown before it is sent. */
  command: string;
  operation: string;
  body: unknown;
  /** What to do with the answer, once sent. */
  then?: (answer: T) => void;
}

type State =
  | { kind: 'idle' }
  | { kind: 'asking'; change: Change }
  | { kind: 'sending'; change: Change }
  | { kind: 'done'; command: string }
  | { kind: 'refused'; message: string };

/** A change's confirmation and outcome, and `ask` to start one. */
export function useChange(model: string | undefined): { ask: <T>(change: Change<T>) => void; box: ComponentChildren; error?: string } {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (state.kind === 'asking') confirm.current?.focus();
  }, [state.kind]);
  const send = (change: Change) => {
    setState({ kind: 'sending', change });
    write(change.operation, change.body, model).then(
      (answer) => {
        setState({ kind: 'done', command: change.command });
        change.then?.(answer);
      },
      (e: unknown) => setState({ kind: 'refused', message: errorMessage(e) }),
    );
  };
  const box =
    state.kind === 'asking' ? (
      <div
        class="confirm"
        role="alertdialog"
        aria-label="Confirm the change"
        onKeyDown={(ev) => ev.key === 'Escape' && setState({ kind: 'idle' })}
      >
        <p>
          Run <code>{state.change.command}</code>?
        </p>
        <button type="button" ref={confirm} class="primary" onClick={() => send(state.change)}>
          Confirm
        </button>{' '}
        <button type="button" onClick={() => setState({ kind: 'idle' })}>
          Cancel
        </button>
      </div>
    ) : state.kind === 'sending' ? (
      <p class="outcome" role="status">
        Sending <code>{state.change.command}</code>…
      </p>
    ) : state.kind === 'done' ? (
      <p class="outcome" role="status">
        ✔ Sent <code>{state.command}</code>
      </p>
    ) : state.kind === 'refused' ? (
      <p class="problem refusal" role="alert">
        ✖ {state.message}
      </p>
    ) : null;
  return {
    ask: (change) => setState({ kind: 'asking', change: change as Change }),
    box,
    ...(state.kind === 'refused' ? { error: state.message } : {}),
  };
}
