// An application's config as a form, as `drover config <app>` reads it: a field per option of the
// charm, typed by the option's type (a number for int and float, a check box for boolean, text
// otherwise), each showing where its value comes from. Saving sends `config` with the changed keys
// (`drover config mysql key=value`), Reset `config --reset key`, each confirmed first; a refusal is
// shown beside the form, and the key it names is marked.
import { useState } from 'preact/hooks';
import { useChange } from './change.js';

export interface ConfigOption {
  value?: unknown;
  default?: unknown;
  source?: string;
  description?: string;
  type?: string;
}

const asText = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
const isBoolean = (type: string | undefined) => type === 'boolean' || type === 'bool';
const isNumber = (type: string | undefined) => type === 'int' || type === 'float';

/** The CLI's spelling of a value: `key=value`, quoted when it has a space. */
const assignment = (key: string, value: string) => `${key}=${/[\s"']/.test(value) || value === '' ? JSON.stringify(value) : value}`;

export function ConfigForm({
  application,
  model,
  config,
  reread,
}: {
  application: string;
  model: string | undefined;
  config: Record<string, ConfigOption>;
  reread: () => void;
}) {
  const [edits, setEdits] = useState<Record<string, string>>({});
  const change = useChange(model);
  const keys = Object.keys(config).sort();
  const current = (key: string) => asText(config[key]?.value ?? config[key]?.default);
  const changed = Object.entries(edits).filter(([key, value]) => value !== current(key));
  const done = () => {
    setEdits({});
    reread();
  };
  const save = (ev: Event) => {
    ev.preventDefault();
    if (!changed.length) return;
    change.ask({
      command: `drover config ${application} ${changed.map(([k, v]) => assignment(k, v)).join(' ')}`,
      operation: 'config',
      body: { application, set: Object.fromEntries(changed) },
      then: done,
    });
  };
  const reset = (key: string) =>
    change.ask({
      command: `drover config ${application} --reset ${key}`,
      operation: 'config',
      body: { application, reset: [key] },
      then: done,
    });
  const refusedKey = keys.find((k) => change.error?.includes(`"${k}"`) || change.error?.includes(` ${k} `));
  if (!keys.length) return <p>No settings.</p>;
  return (
    <form class="config-form" onSubmit={save} aria-label={`Config of ${application}`}>
      <table class="config">
        <tbody>
          {keys.map((k) => {
            const option = config[k]!;
            const id = `config-${k}`;
            const value = edits[k] ?? current(k);
            const set = (v: string) => setEdits({ ...edits, [k]: v });
            return (
              <tr key={k} data-key={k} class={refusedKey === k ? 'invalid' : ''}>
                <th scope="row">
                  <label for={id} title={option.description}>
                    {k}
                  </label>
                </th>
                <td>
                  {isBoolean(option.type) ? (
                    <input
                      id={id}
                      name={k}
                      type="checkbox"
                      checked={value === 'true'}
                      onChange={(ev) => set(String(ev.currentTarget.checked))}
                    />
                  ) : (
                    <input
                      id={id}
                      name={k}
                      type={isNumber(option.type) ? 'number' : 'text'}
                      step={option.type === 'float' ? 'any' : '1'}
                      value={value}
                      aria-invalid={refusedKey === k}
                      onInput={(ev) => set(ev.currentTarget.value)}
                    />
                  )}
                </td>
                <td class="source">
                  {option.type ?? ''} · {option.source ?? ''}
                  {option.source === 'user' ? (
                    <>
                      {' '}
                      <button type="button" class="reset" aria-label={`Reset ${k}`} onClick={() => reset(k)}>
                        Reset
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button type="submit" class="primary" disabled={!changed.length}>
        Save {changed.length ? `(${changed.length})` : ''}
      </button>
      {change.box}
    </form>
  );
}
