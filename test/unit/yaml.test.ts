// Bounded YAML (shared/domain/yaml.ts): a document nesting thousands of flow collections used to
// abort the process inside the yaml library (V8 regexp memory), so such documents are refused
// before the parser sees them; ordinary documents parse as before.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCharm } from '#shared/domain/charm.js';
import { MAX_YAML_BYTES, MAX_YAML_DEPTH, parseYaml, parseYamlScalarsAsText, YamlTooLargeError } from '#shared/domain/yaml.js';

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

  it("reads scalars as written, as Go's yaml.v2 reads them into strings, within the same bounds", () => {
    expect(parseYamlScalarsAsText('n: 1.50\nb: True\nh: 0x10\nz: ~\nq: "x"\nTrue: k\nl: [1, yes]\n')).toEqual({
      n: '1.50',
      b: 'True',
      h: '0x10',
      z: null,
      q: 'x',
      True: 'k',
      l: ['1', 'yes'],
    });
    expect(() => parseYamlScalarsAsText('a: [1\n')).toThrow(/Flow sequence/);
    expect(() => parseYamlScalarsAsText(nested(MAX_YAML_DEPTH + 1))).toThrow(YamlTooLargeError);
  });

  it('refuses collections nested deeper than the bound, and documents larger than it', () => {
    expect(() => parseYaml(nested(MAX_YAML_DEPTH + 1))).toThrow(YamlTooLargeError);
    expect(() => parseYaml(`summary: ${'{'.repeat(5000)}`)).toThrow(/nested more than 64 levels deep/);
    expect(() => parseYaml(`a: "${'x'.repeat(MAX_YAML_BYTES)}"`)).toThrow(/larger than 1024 KiB/);
  });

  // Found by the parser fuzzer (test/fuzz/parsers.fuzz.test.ts): the bound's own count guessed
  // where quotes open, and an apostrophe inside a plain scalar hid what followed from it, so the
  // parser met 5,000 levels and ran out of stack (the state in which it aborts the process).
  it('counts as YAML reads: a quote inside a plain scalar, or brackets closed inside quotes, hide no nesting', () => {
    expect(() => parseYaml(`a: b 'x\n${nested(5000)}`)).toThrow(YamlTooLargeError);
    expect(() => parseYaml(`a: b "x\n${nested(5000)}`)).toThrow(YamlTooLargeError);
    expect(() => parseYaml(`a: |\n  - 'x\n${nested(100)}`)).toThrow(YamlTooLargeError);
    expect(() => parseYaml(('['.repeat(60) + '"' + ']'.repeat(60) + '"').repeat(84))).toThrow(YamlTooLargeError);
    // Brackets that are no collection at all are still not counted.
    expect(parseYaml(`a: |\n  ${'['.repeat(100)}\nb: "${'{'.repeat(100)}"\n# ${'['.repeat(100)}\n`)).toEqual({
      a: `${'['.repeat(100)}\n`,
      b: '{'.repeat(100),
    });
  });

  // Found by the parser fuzzer too: block collections nest by indentation or compactly
  // (`- - - x`), which no bracket count sees; `- ` nested 1,000 deep (2 KB) aborted the process
  // on its second parse, as the flow collections had.
  it('refuses block collections nested past the column bound, and keeps ordinary block documents', () => {
    expect(() => parseYaml(`${'- '.repeat(1000)}x\n`)).toThrow('block collections are indented more than 256 columns deep');
    expect(() => parseYaml(`${'? '.repeat(1000)}x\n`)).toThrow(YamlTooLargeError);
    expect(() => parseYaml(Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}a${i}:`).join('\n') + ' x\n')).toThrow(YamlTooLargeError);
    expect(parseYaml(`${'- '.repeat(100)}x\n`)).toBeDefined();
    expect(
      parseYaml(`options:
  title:
    type: string
    description: |
      a - b - c, with ${'- '.repeat(200)}in a block scalar
    default: "- - - ${'x '.repeat(200)}"
list:
  - a
  - - b
    - ? c
      : d
`),
    ).toMatchObject({ list: ['a', ['b', { c: 'd' }]] });
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

  it('keeps the process alive when a block sequence nested 1,000 deep comes twice', () => {
    const script = `
      import { parseYaml } from ${JSON.stringify(fileURLToPath(new URL('../../shared/domain/yaml.ts', import.meta.url)))};
      const doc = ${JSON.stringify(`${'- '.repeat(1000)}x\n`)};
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
