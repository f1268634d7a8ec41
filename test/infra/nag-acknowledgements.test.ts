// Every cdk-nag acknowledgement is made in infra/nag-acknowledgements.ts, with its reason, and
// nowhere else in the CDK app: a finding silenced next to the resource would not be seen with the
// others. (Whether each still matches a finding is test/infra/stack.test.ts's.)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/functions.js';

const INFRA = join(REPO_ROOT, 'infra');
/** The ways a CDK app can silence a cdk-nag finding: CDK's acknowledgements, cdk-nag's suppressions and their metadata. */
const SILENCERS = [/\.acknowledge\(/, /NagSuppressions/, /cdk_nag/, /acknowledgeRule/];

describe('cdk-nag acknowledgements', () => {
  it('are all made in infra/nag-acknowledgements.ts', () => {
    const elsewhere = readdirSync(INFRA, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'nag-acknowledgements.ts')
      .flatMap((file) =>
        readFileSync(join(INFRA, file), 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `infra/${file}:${i + 1}`, line }))
          .filter(({ line }) => SILENCERS.some((silencer) => silencer.test(line))),
      )
      .map(({ where, line }) => `${where}: ${line.trim()}`);
    expect(elsewhere).toEqual([]);
    expect(readFileSync(join(INFRA, 'nag-acknowledgements.ts'), 'utf8')).toMatch(/Validations\.of\(construct\)\.acknowledge\(/);
  });
});
