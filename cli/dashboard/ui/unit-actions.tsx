// What can be done to a unit from its pane, as the CLI does it: `drover resolved` (offered while
// its agent or workload is in error), `drover remove-unit`, and an action run (action-form.tsx).
import { useChange } from './change.js';

export function UnitActions({ unit, inError, model }: { unit: string; inError: boolean; model: string | undefined }) {
  const change = useChange(model);
  return (
    <div class="unit-actions" role="group" aria-label={`Change ${unit}`}>
      {inError ? (
        <button
          type="button"
          class="primary"
          onClick={() => change.ask({ command: `drover resolved ${unit}`, operation: 'resolved', body: { units: [unit] } })}
        >
          Resolve
        </button>
      ) : null}{' '}
      <button
        type="button"
        class="danger"
        onClick={() => change.ask({ command: `drover remove-unit ${unit}`, operation: 'remove-unit', body: { units: [unit] } })}
      >
        Remove unit
      </button>
      {change.box}
    </div>
  );
}
