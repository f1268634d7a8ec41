// The parsers the fuzzer drives in a child process (test/fuzz/parsers.fuzz.test.ts), since the
// failure it looks for — the YAML library aborting the process on a hostile document — cannot be
// caught inside the process that suffers it. Reads a JSON list of inputs on stdin; writes one
// JSON line per input as it finishes (`outcome`, `ms`), so the parent knows which input was
// running if this process dies. Outcomes: `ok`, `refused` (the error a client is told about),
// or `bad: <error>` (anything else: a crash a client would see as a 5xx).
import { parseCharm } from '#shared/domain/charm.js';
import { parseConstraints } from '#shared/domain/constraints.js';
import { isDroverError, errorStack } from '#shared/domain/errors.js';
import { parseYaml } from '#shared/domain/yaml.js';

interface Input {
  kind: 'yaml' | 'metadata' | 'config' | 'constraints';
  text: string;
}

const METADATA = 'name: fuzz\nseries: [jammy]\n';

function outcome(input: Input): string {
  try {
    if (input.kind === 'yaml') {
      try {
        parseYaml(input.text);
      } catch (e) {
        // parseYaml's contract is "parses, or throws": every caller catches whatever it throws and
        // reports its first line (the yaml library throws a ReferenceError on an alias bomb). A
        // throw is a refusal; what the fuzzer looks for here is a process that dies or hangs.
        // Except the parser running out of stack: the state in which the yaml library went on to
        // abort the process (docs/reliability.md, defect #1), so a document that reaches it has passed the bounds.
        if (e instanceof Error && /Maximum call stack size exceeded/.test(e.message))
          return `bad: the parser ran out of stack: ${e.message.split('\n')[0]}`;
        if (e instanceof Error) return 'refused';
        throw e;
      }
    } else if (input.kind === 'metadata') parseCharm(input.text);
    else if (input.kind === 'config') parseCharm(METADATA, input.text);
    else parseConstraints(input.text);
    return 'ok';
  } catch (e) {
    if (isDroverError(e)) return 'refused';
    return `bad: ${errorStack(e)}`;
  }
}

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const inputs = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Input[];
let rss = 0;
for (const input of inputs) {
  const started = performance.now();
  const result = outcome(input);
  rss = Math.max(rss, process.memoryUsage().rss);
  process.stdout.write(`${JSON.stringify({ outcome: result, ms: Math.round(performance.now() - started), rss })}\n`);
}
