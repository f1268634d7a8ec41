// Bounded YAML (shared/domain/yaml.ts): a document nesting thousands of flow collections used to
// abort the process inside the yaml library (V8 regexp memory), so such documents are refused
// before the parser sees them; ordinary documents parse as before.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCharm } from '../../shared/domain/charm.js';
import { MAX_YAML_BYTES, MAX_YAML_DEPTH, parseYaml, YamlTooLargeError } from '../../shared/domain/yaml.js';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('bounded YAML', () => {
  it('parses ordinary documents, brackets in quoted scalars, comments and apostrophes included', () => {
    const doc = `name: x # a comment with [[[[ in it
summary: "[[[[[[[[ not a collection"
description: don't [read] this as a quote
list: [a, {b: [c]}]
other: '{{{{ neither'
`;
    expect(parseYaml(doc)).toEqual({
      name: 'x',
      summary: '[[[[[[[[ not a collection',
      description: "don't [read] this as a quote",
      list: ['a', { b: ['c'] }],
      other: '{{{{ neither',
    });
    expect(parseYaml(nested(MAX_YAML_DEPTH))).toBeDefined();
  });

  it('refuses collections nested deeper than the bound, and documents larger than it', () => {
    expect(() => parseYaml(nested(MAX_YAML_DEPTH + 1))).toThrow(YamlTooLargeError);
    expect(() => parseYaml(`summary: ${'{'.repeat(5000)}`)).toThrow(/nested more than 64 levels deep/);
    expect(() => parseYaml(`a: "${'x'.repeat(MAX_YAML_BYTES)}"`)).toThrow(/larger than 1024 KiB/);
  });

  it('gives charm metadata nested 5,000 deep the file’s error, not a crash', () => {
    expect(() => parseCharm(`name: bad\nsummary: s\nseries: [jammy]\ndescription: ${nested(5000)}\n`)).toThrow(
      'metadata.yaml: invalid YAML: collections are nested more than 64 levels deep',
    );
  });

  it('keeps the process alive when the same document comes twice (the yaml library alone aborts it)', () => {
    const script = `
      import { parseYaml } from ${JSON.stringify(fileURLToPath(new URL('../../shared/domain/yaml.ts', import.meta.url)))};
      const doc = ${JSON.stringify(nested(5000))};
      for (let i = 0; i < 2; i++) { try { parseYaml(doc); } catch {} }
      console.log('alive');
    `;
    const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.stdout.trim()).toBe('alive');
    expect(res.status).toBe(0);
  });
});
