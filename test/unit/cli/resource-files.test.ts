// deploy --resource and attach-resource's arguments, checked on the client before anything is
// uploaded (cli/resource-upload.ts).
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resourceFiles } from '../../../cli/resource-upload.js';
import { parseCharmResources } from '#shared/domain/resources.js';

const declared = parseCharmResources({ payload: { type: 'file', filename: 'p.txt' }, image: { type: 'oci-image' } });

describe('resource arguments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'drover-resource-args-'));
  const file = join(dir, 'p.txt');
  writeFileSync(file, 'twelve bytes');

  it('name the file of each declared file resource, with its size', async () => {
    expect(await resourceFiles(declared, [`payload=${file}`])).toEqual([{ name: 'payload', path: file, size: 12 }]);
  });

  it('refuse, before any upload, a bad spelling, a name twice, an undeclared or non-file resource, a missing file, a directory, a file over 1 GiB', async () => {
    await expect(resourceFiles(declared, ['payload'])).rejects.toThrow('invalid resource specification "payload": expected name=path');
    await expect(resourceFiles(declared, [`payload=${file}`, `payload=${file}`])).rejects.toThrow(
      'resource "payload" given more than once',
    );
    await expect(resourceFiles(declared, [`nope=${file}`])).rejects.toThrow('unrecognized resource "nope"');
    await expect(resourceFiles(declared, [`image=${file}`])).rejects.toThrow('resource "image" is of type "oci-image"');
    await expect(resourceFiles(declared, [`payload=${join(dir, 'absent')}`])).rejects.toThrow(
      `resource "payload": file "${join(dir, 'absent')}" not found`,
    );
    await expect(resourceFiles(declared, [`payload=${dir}`])).rejects.toThrow(`resource "payload": "${dir}" is not a file`);
    const huge = join(dir, 'huge');
    writeFileSync(huge, '');
    truncateSync(huge, 2 ** 30 + 1);
    await expect(resourceFiles(declared, [`payload=${huge}`])).rejects.toThrow(
      `resource "payload": "${huge}" is ${2 ** 30 + 1} bytes, more than the ${2 ** 30} a resource may be`,
    );
  });
});
