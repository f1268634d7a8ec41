// The page: the model's name, the switcher to another model, when it was last read, tabs for the
// views, and the detail pane of whatever was chosen.
import { useState } from 'preact/hooks';
import { Detail, type Selection } from './detail.js';
import { graphOf } from './graph.js';
import { LogView, NO_LOG_FILTERS, type LogFilters } from './log-view.js';
import { ModelSwitcher, useChosenModel, type ChosenModel } from './model-switcher.js';
import { SecretsView } from './secrets-view.js';
import { Stuck } from './stuck.js';
import { Applications, Machines, Relations, Units } from './tables.js';
import { Topology } from './topology.js';
import { useModel } from './use-model.js';

const VIEWS = ['Topology', 'Applications', 'Units', 'Machines', 'Relations', 'Stuck', 'Log', 'Secrets'] as const;
type View = (typeof VIEWS)[number];

function Tabs({ view, setView, stuck }: { view: View; setView: (v: View) => void; stuck: number }) {
  const move = (ev: KeyboardEvent) => {
    const step = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    const next = VIEWS[(VIEWS.indexOf(view) + step + VIEWS.length) % VIEWS.length]!;
    setView(next);
    document.getElementById(`tab-${next}`)?.focus();
  };
  return (
    <nav role="tablist" aria-label="Views" onKeyDown={move}>
      {VIEWS.map((v) => (
        <button
          key={v}
          id={`tab-${v}`}
          type="button"
          role="tab"
          aria-selected={v === view}
          tabIndex={v === view ? 0 : -1}
          onClick={() => setView(v)}
        >
          {v}
          {v === 'Stuck' && stuck ? ` (${stuck})` : ''}
        </button>
      ))}
    </nav>
  );
}

export function App() {
  const chosen = useChosenModel();
  const [view, setView] = useState<View>('Topology');
  // A new model is a new page but for the view: nothing read of, or chosen in, the last one stays.
  return <ModelPage key={chosen.model ?? ''} chosen={chosen} view={view} setView={setView} />;
}

function ModelPage({ chosen, view, setView }: { chosen: ChosenModel; view: View; setView: (v: View) => void }) {
  const model = useModel(chosen.model);
  const [selection, setSelection] = useState<Selection | undefined>();
  const [logFilters, setLogFilters] = useState<LogFilters>(NO_LOG_FILTERS);
  const { doc } = model;
  const select = (kind: Selection['kind'], name: string) => setSelection({ kind, name });
  return (
    <>
      <header class="top">
        <h1>{doc ? `${doc.model.controller}:${doc.model.name}` : 'drover'}</h1>
        <ModelSwitcher chosen={chosen} shown={chosen.model ?? doc?.model.name} />
        <p class="updated" aria-live="polite" data-live={model.live} data-revision={model.revision}>
          {model.error ? <span class="problem">✖ {model.error} </span> : null}
          {model.updated ? `Last updated ${model.updated.toLocaleTimeString()}` : 'Reading the model…'}
        </p>
      </header>
      <Tabs view={view} setView={setView} stuck={model.stuck.length} />
      <div class="body">
        <main role="tabpanel" aria-labelledby={`tab-${view}`} data-view={view}>
          {!doc ? (
            <p class="empty">Reading the model…</p>
          ) : view === 'Topology' ? (
            <Topology
              graph={graphOf(doc, model.stuck)}
              onSelect={(name) => select('application', name)}
              onSelectRelation={(key) => select('relation', key)}
            />
          ) : view === 'Applications' ? (
            <Applications doc={doc} select={select} />
          ) : view === 'Units' ? (
            <Units doc={doc} select={select} />
          ) : view === 'Machines' ? (
            <Machines doc={doc} select={select} />
          ) : view === 'Relations' ? (
            <Relations doc={doc} select={select} model={chosen.model} />
          ) : view === 'Stuck' ? (
            <Stuck stuck={model.stuck} />
          ) : view === 'Log' ? (
            <LogView model={chosen.model} filters={logFilters} setFilters={setLogFilters} />
          ) : (
            <SecretsView model={chosen.model} />
          )}
        </main>
        {doc && selection ? (
          <Detail doc={doc} select={select} model={chosen.model} selection={selection} close={() => setSelection(undefined)} />
        ) : null}
      </div>
    </>
  );
}
