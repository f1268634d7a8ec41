// Which of the controller's models the page shows, and the control that picks another. The choice
// is the URL fragment's `model=` (a fragment never leaves the browser), so a reload
// or a copied link shows the same model; without it, the page shows the model `drover dashboard`
// was started on. A model is taken only once the proxy has read it: a name it refuses or a model
// the controller does not have leaves the page, and its fragment, as they were, and says why in
// the proxy's words (cli/dashboard/page-model.ts; docs/dashboard.md, "Models").
import { useEffect, useRef, useState } from 'preact/hooks';
import { read, readModels, type ModelSummary } from './api.js';
import { errorMessage } from '#shared/domain/errors.js';

const fragment = () => new URLSearchParams(location.hash.slice(1));
const modelInFragment = () => fragment().get('model') || undefined;

/** The fragment with `model=` set (or dropped), everything else in it kept. */
function fragmentWith(model: string | undefined): string {
  const params = fragment();
  if (model) params.set('model', model);
  else params.delete('model');
  return `#${params}`;
}

export interface ChosenModel {
  /** The model the page shows; undefined: the one `drover dashboard` was started on. */
  model?: string;
  models: ModelSummary[];
  /** Why the last switch (or reading the list) did not happen. */
  refusal?: string;
  choose(name: string): void;
  /** Read the list again (models come and go while the page is open). */
  refresh(): void;
}

export function useChosenModel(): ChosenModel {
  const [model, setModel] = useState(modelInFragment);
  const [models, setModels] = useState<ModelSummary[]>([]);
  const [refusal, setRefusal] = useState<string | undefined>();
  const shown = useRef(model);
  const refresh = () => void readModels().then(setModels, (e: unknown) => setRefusal(errorMessage(e)));
  useEffect(() => {
    refresh();
    // The one way a model changes: the fragment, by the switcher, by hand, or by Back.
    const followFragment = async () => {
      const wanted = modelInFragment();
      if (wanted === shown.current) return;
      try {
        // One small read of the wanted model: the proxy checks its name, the controller that it exists.
        if (wanted !== undefined) await read('status', { limit: '1' }, wanted);
      } catch (e) {
        setRefusal(errorMessage(e));
        if (modelInFragment() === wanted) history.replaceState(null, '', fragmentWith(shown.current));
        return;
      }
      // A later change of the fragment has already been followed.
      if (modelInFragment() !== wanted) return;
      shown.current = wanted;
      setModel(wanted);
      setRefusal(undefined);
    };
    const onHashChange = () => void followFragment();
    addEventListener('hashchange', onHashChange);
    return () => removeEventListener('hashchange', onHashChange);
  }, []);
  return { model, models, refusal, refresh, choose: (name) => void (location.hash = fragmentWith(name)) };
}

export function ModelSwitcher({ chosen, shown }: { chosen: ChosenModel; shown: string | undefined }) {
  const names = chosen.models.map((m) => m.name);
  // The model shown is always an option, even before the list is read.
  if (shown && !names.includes(shown)) names.unshift(shown);
  const status = (name: string) => chosen.models.find((m) => m.name === name)?.status;
  return (
    <span class="switcher">
      <label>
        Model{' '}
        <select
          id="model"
          value={shown ?? ''}
          onFocus={chosen.refresh}
          onChange={(ev) => chosen.choose((ev.target as HTMLSelectElement).value)}
        >
          {shown ? null : <option value="">…</option>}
          {names.map((name) => (
            <option key={name} value={name}>
              {status(name) === 'destroying' ? `${name} (destroying)` : name}
            </option>
          ))}
        </select>
      </label>
      {chosen.refusal ? (
        <span class="problem" role="alert">
          ✖ {chosen.refusal}
        </span>
      ) : null}
    </span>
  );
}
