// `drover secrets` in the page: each secret of the model with its owner and latest revision; chosen,
// its revisions and who it is granted to (`show-secret --revisions`). Its content is read only when
// the user asks for it, by a call of its own (`show-secret --reveal`; the proxy passes `reveal` on
// no other way: cli/dashboard/write-routes.ts), and is forgotten when the secret is closed.
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { read, write } from './api.js';
import { Link } from './tables.js';
import { Table } from './table.js';
import { errorMessage } from '#shared/domain/errors.js';

interface SecretShown {
  revision: number;
  owner: string;
  name?: string;
  label?: string;
  rotation?: string;
  updated: string;
  description?: string;
  revisions?: { revision: number; created: string }[];
  access?: { target: string; scope: string; role: string }[];
  content?: { Data: Record<string, string> };
}

const only = (answer: Record<string, SecretShown>) => Object.values(answer)[0];

function SecretDetail({ id, model }: { id: string; model: string | undefined }) {
  const [shown, setShown] = useState<SecretShown | string>('Loading…');
  const [content, setContent] = useState<Record<string, string> | string | undefined>();
  useEffect(() => {
    setContent(undefined);
    read<Record<string, SecretShown>>('show-secret', { secret: id, revisions: 'true' }, model).then(
      (a) => setShown(only(a) ?? `secret ${id} not found`),
      (e: unknown) => setShown(errorMessage(e)),
    );
  }, [id, model]);
  const reveal = () =>
    write<Record<string, SecretShown>>('reveal-secret', { secret: id }, model).then(
      (a) => setContent(only(a)?.content?.Data ?? {}),
      (e: unknown) => setContent(errorMessage(e)),
    );
  if (typeof shown === 'string') return <p>{shown}</p>;
  return (
    <div class="secret" data-secret={id}>
      <h3>Revisions</h3>
      <ul>
        {(shown.revisions ?? []).map((r) => (
          <li key={r.revision}>
            {r.revision} <time>{r.created}</time>
          </li>
        ))}
      </ul>
      <h3>Granted to</h3>
      {shown.access?.length ? (
        <ul class="grants">
          {shown.access.map((g) => (
            <li key={`${g.target}${g.scope}`}>
              {g.target} ({g.role}, scope {g.scope})
            </li>
          ))}
        </ul>
      ) : (
        <p>No grants.</p>
      )}
      <h3>Content</h3>
      {content === undefined ? (
        <button type="button" class="danger" onClick={() => void reveal()}>
          Reveal content
        </button>
      ) : typeof content === 'string' ? (
        <p class="problem refusal" role="alert">
          ✖ {content}
        </p>
      ) : (
        <dl class="content">
          {Object.entries(content).map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </div>
  );
}

export function SecretsView({ model }: { model: string | undefined }) {
  const [secrets, setSecrets] = useState<Record<string, SecretShown> | string>('Loading…');
  const [chosen, setChosen] = useState<string | undefined>();
  useEffect(() => {
    read<Record<string, SecretShown>>('secrets', {}, model).then(setSecrets, (e: unknown) => setSecrets(errorMessage(e)));
  }, [model]);
  if (typeof secrets === 'string') return <p>{secrets}</p>;
  const rows = Object.entries(secrets).map(([id, s]) => ({ id, ...s }));
  return (
    <div class="secrets">
      <Table
        name="Secrets"
        rows={rows}
        rowKey={(r) => r.id}
        columns={[
          { title: 'ID', text: (r) => r.id, cell: (r) => <Link onClick={() => setChosen(r.id)}>{r.id}</Link> },
          { title: 'Name', text: (r) => r.name ?? r.label ?? '' },
          { title: 'Owner', text: (r) => r.owner },
          { title: 'Revision', text: (r) => String(r.revision) },
          { title: 'Rotation', text: (r) => r.rotation ?? 'never' },
          { title: 'Updated', text: (r) => r.updated },
        ]}
      />
      {chosen ? <SecretDetail key={chosen} id={chosen} model={model} /> : null}
    </div>
  );
}
