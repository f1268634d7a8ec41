// `drover stuck` in the page: each entity Dying too long, what holds it, and the command each
// reason suggests, with a button that copies it.
import { useState } from 'preact/hooks';
import type { StuckEntity } from './api.js';

/** The command a blocked-by reason suggests: `… run "drover resolved mysql/0"`. */
export const suggestedCommand = (reason: string) => /run "(drover [^"]+)"/.exec(reason)?.[1];

function Copy({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="copy"
      aria-label={`Copy ${text}`}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

const age = (seconds: number) =>
  seconds < 120 ? `${Math.round(seconds)}s` : seconds < 7200 ? `${Math.round(seconds / 60)}m` : `${Math.round(seconds / 3600)}h`;

export function Stuck({ stuck }: { stuck: StuckEntity[] }) {
  if (!stuck.length) return <p class="empty">Nothing is stuck.</p>;
  return (
    <ul class="stuck" aria-label="Stuck">
      {stuck.map((s) => (
        <li key={s.entity} data-entity={s.entity}>
          <h3>
            {s.entity} <span class="life">{s.life}</span> <span class="age">for {age(s.ageSeconds)}</span>
          </h3>
          <ul>
            {s.reasons.map((reason) => {
              const command = suggestedCommand(reason);
              return (
                <li key={reason}>
                  <span class="reason">blocked by: {reason}</span>
                  {command ? (
                    <span class="command">
                      <code>{command}</code> <Copy text={command} />
                    </span>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </li>
      ))}
    </ul>
  );
}
