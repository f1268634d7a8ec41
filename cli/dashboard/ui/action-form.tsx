// `drover run <unit>... <action> key=value...` as a form: the application's actions (`drover
// actions`), a field per parameter of the chosen one's JSON Schema (a number for integer and
// number, a check box for boolean, JSON for object and array, text otherwise; required ones
// marked), the units to run it on, then the tasks followed until they end and their results shown.
import { useEffect, useState } from 'preact/hooks';
import { read } from './api.js';
import { useChange } from './change.js';
import { TaskResult, type Queued } from './task-result.js';
import { errorMessage } from '#shared/domain/errors.js';

interface ActionSpec {
  description: string;
  params: { properties?: Record<string, { type?: string; description?: string; default?: unknown }>; required?: string[] };
}

/** A field's text as the parameter's type: numbers and booleans as such, objects and arrays parsed as JSON. */
function valueOf(type: string | undefined, text: string): unknown {
  if (type === 'integer' || type === 'number') return Number(text);
  if (type === 'boolean') return text === 'true';
  if (type === 'object' || type === 'array') return JSON.parse(text) as unknown;
  return text;
}

export function ActionForm({
  application,
  units,
  chosen,
  model,
}: {
  application: string;
  units: string[];
  chosen: string;
  model: string | undefined;
}) {
  const [actions, setActions] = useState<Record<string, ActionSpec> | string>('Loading…');
  const [action, setAction] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [targets, setTargets] = useState<string[]>([chosen]);
  const [queued, setQueued] = useState<Queued | undefined>();
  const [invalid, setInvalid] = useState<string | undefined>();
  const change = useChange(model);
  useEffect(() => {
    read<{ actions: Record<string, ActionSpec> }>('actions', { application }, model).then(
      (r) => setActions(r.actions),
      (e: unknown) => setActions(errorMessage(e)),
    );
  }, [application, model]);
  if (typeof actions === 'string') return <p>{actions}</p>;
  const names = Object.keys(actions).sort();
  if (!names.length) return <p>{application}'s charm has no actions.</p>;
  const spec = actions[action];
  const properties = spec?.params.properties ?? {};
  const required = new Set(spec?.params.required ?? []);
  const run = (ev: Event) => {
    ev.preventDefault();
    if (!spec) return;
    const parameters: Record<string, unknown> = {};
    try {
      for (const [key, text] of Object.entries(fields)) if (text !== '') parameters[key] = valueOf(properties[key]?.type, text);
    } catch (e) {
      return setInvalid(`a parameter is not JSON: ${errorMessage(e)}`);
    }
    setInvalid(undefined);
    const shown = Object.entries(parameters).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    change.ask<Queued>({
      command: ['drover run', ...targets, action, ...shown].join(' '),
      operation: 'run',
      body: { units: targets, action, ...(Object.keys(parameters).length ? { parameters } : {}) },
      then: setQueued,
    });
  };
  return (
    <form class="action-form" onSubmit={run} aria-label={`Run an action of ${application}`}>
      <label>
        Action{' '}
        <select
          name="action"
          value={action}
          onChange={(ev) => {
            setAction(ev.currentTarget.value);
            setFields({});
          }}
        >
          <option value="">choose…</option>
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      {spec ? <p class="description">{spec.description}</p> : null}
      {Object.entries(properties).map(([key, param]) => (
        <label key={key} class="param">
          {key}
          {required.has(key) ? ' *' : ''}{' '}
          {param.type === 'boolean' ? (
            <input name={key} type="checkbox" onChange={(ev) => setFields({ ...fields, [key]: String(ev.currentTarget.checked) })} />
          ) : (
            <input
              name={key}
              type={param.type === 'integer' || param.type === 'number' ? 'number' : 'text'}
              required={required.has(key)}
              placeholder={param.default === undefined ? (param.description ?? '') : `default ${JSON.stringify(param.default)}`}
              value={fields[key] ?? ''}
              onInput={(ev) => setFields({ ...fields, [key]: ev.currentTarget.value })}
            />
          )}
        </label>
      ))}
      <fieldset>
        <legend>Units</legend>
        {units.map((u) => (
          <label key={u} class="unit-choice">
            <input
              type="checkbox"
              name="unit"
              value={u}
              checked={targets.includes(u)}
              onChange={(ev) => setTargets(ev.currentTarget.checked ? [...targets, u] : targets.filter((t) => t !== u))}
            />{' '}
            {u}
          </label>
        ))}
      </fieldset>
      <button type="submit" class="primary" disabled={!spec || !targets.length}>
        Run
      </button>
      {invalid ? (
        <p class="problem" role="alert">
          ✖ {invalid}
        </p>
      ) : null}
      {change.box}
      {queued ? <TaskResult queued={queued} model={model} /> : null}
    </form>
  );
}
