// Relations changed from the page as the CLI changes them: `drover relate` from two endpoints the
// user names, and `drover remove-relation` of a chosen relation (by its endpoints, or its id for a
// peer relation, which has one).
import { useState } from 'preact/hooks';
import { useChange } from './change.js';

export function RelateForm({ model }: { model: string | undefined }) {
  const [first, setFirst] = useState('');
  const [second, setSecond] = useState('');
  const change = useChange(model);
  const relate = (ev: Event) => {
    ev.preventDefault();
    const endpoints = [first.trim(), second.trim()];
    change.ask({ command: `drover relate ${endpoints.join(' ')}`, operation: 'relate', body: { endpoints } });
  };
  return (
    <form class="relate" onSubmit={relate} aria-label="Relate two applications">
      <label>
        Relate <input name="first" required placeholder="wordpress:db" value={first} onInput={(ev) => setFirst(ev.currentTarget.value)} />
      </label>{' '}
      <label>
        to <input name="second" required placeholder="mysql" value={second} onInput={(ev) => setSecond(ev.currentTarget.value)} />
      </label>{' '}
      <button type="submit" class="primary">
        Relate
      </button>
      {change.box}
    </form>
  );
}

export function RemoveRelation({ id, relationKey, model }: { id: number; relationKey: string; model: string | undefined }) {
  const change = useChange(model);
  const endpoints = relationKey.split(' ');
  const body = endpoints.length === 2 ? { endpoints } : { id };
  const command = endpoints.length === 2 ? `drover remove-relation ${relationKey}` : `drover remove-relation ${id}`;
  return (
    <div class="relation-actions" role="group" aria-label={`Change relation ${relationKey}`}>
      <button type="button" class="danger" onClick={() => change.ask({ command, operation: 'remove-relation', body })}>
        Remove relation
      </button>
      {change.box}
    </div>
  );
}
