import { describe, expect, it } from 'vitest';
import { parseCharm } from '#shared/domain/charm.js';
import { planAttachResource } from '#shared/domain/plans/attach-resource.js';
import { checkUploadable, nextResources, parseCharmResources, parseResourceArgument } from '#shared/domain/resources.js';
import { combinedRevision, formattedResources, resourcesTable } from '../../cli/resources-view.js';
import { application } from './plans/relation-fixtures.js';

const TESTAPP = `
name: testapp
requires:
  db:
    interface: dbi
resources:
  test-file:
    type: file
    filename: test-file.tar
    description: A test file resource to verify extensions are preserved.
  image:
    type: oci-image
`;

const content = (n: number) => ({
  sha256: String(n).repeat(64),
  fingerprint: String(n).repeat(96),
  size: n,
  timestamp: '2026-11-29T07:05:00.000Z',
});

describe('charm resources in metadata.yaml', () => {
  it('are read with their type, filename and description', () => {
    expect(parseCharm(TESTAPP).resources).toEqual({
      'test-file': {
        name: 'test-file',
        type: 'file',
        filename: 'test-file.tar',
        description: 'A test file resource to verify extensions are preserved.',
      },
      image: { name: 'image', type: 'oci-image', filename: '' },
    });
    expect(parseCharm('name: plain\n').resources).toBeUndefined();
  });

  it("are refused in Juju's words when a file has no filename, a type is unknown, or a name or filename leads elsewhere", () => {
    expect(() => parseCharmResources({ f: { type: 'file' } })).toThrow('metadata.yaml: resource "f": resource missing filename');
    expect(() => parseCharmResources({ f: { type: 'tarball', filename: 'x' } })).toThrow('unsupported resource type "tarball"');
    expect(() => parseCharmResources({ f: { type: 'file', filename: '../x' } })).toThrow('filename cannot contain "/" (got "../x")');
    expect(() => parseCharmResources({ f: { type: 'file', filename: '..' } })).toThrow('invalid filename ".."');
    expect(() => parseCharmResources(['f'])).toThrow('"resources" must be a mapping');
    expect(() => parseCharmResources({ '../x': { type: 'file', filename: 'x' } })).toThrow('metadata.yaml: invalid resource name "../x"');
  });
});

describe('resources given to deploy and attach-resource', () => {
  const declared = parseCharm(TESTAPP).resources;

  it('are name=path', () => {
    expect(parseResourceArgument('test-file=./a=b.tar')).toEqual({ name: 'test-file', path: './a=b.tar' });
    for (const bad of ['test-file', '=x', 'test-file='])
      expect(() => parseResourceArgument(bad)).toThrow(`invalid resource specification "${bad}": expected name=path`);
  });

  it('must be declared, and file resources', () => {
    expect(() => checkUploadable(declared, ['test-file'])).not.toThrow();
    expect(() => checkUploadable(declared, ['nope'])).toThrow('unrecognized resource "nope"');
    expect(() => checkUploadable(declared, ['b', 'a'])).toThrow('unrecognized resources: a, b');
    expect(() => checkUploadable(undefined, ['x'])).toThrow('unrecognized resource "x"');
    expect(() => checkUploadable(declared, ['image'])).toThrow('resource "image" is of type "oci-image"');
  });

  it('take the next revision only when their content differs from the one in use', () => {
    const first = nextResources(undefined, { 'test-file': content(1) });
    expect(first.resources['test-file']).toMatchObject({ revision: 1, sha256: content(1).sha256 });
    expect(first.changed).toEqual(['test-file']);
    const same = nextResources(first.resources, { 'test-file': content(1) });
    expect(same).toEqual({ resources: first.resources, changed: [] });
    const second = nextResources(first.resources, { 'test-file': content(2) });
    expect(second.resources['test-file']).toMatchObject({ revision: 2, size: 2 });
  });
});

describe('attach-resource', () => {
  const testapp = { ...application('wordpress'), charm: parseCharm(TESTAPP) };

  it('sets the new revisions and moves charmModifiedVersion, asserting the version and charm it counted from', () => {
    const plan = planAttachResource(testapp, { application: 'wordpress', uploads: { 'test-file': content(1) } });
    expect(plan.result).toEqual({ application: 'wordpress', changed: ['test-file'] });
    expect(plan.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'application', name: 'wordpress' },
        set: { resources: { 'test-file': { ...content(1), revision: 1 } }, charmModifiedVersion: 1 },
        expect: { life: 'alive', equals: { charmUrl: testapp.charmUrl }, absent: ['charmModifiedVersion'] },
      },
    ]);
    const attached = { ...testapp, resources: { 'test-file': { ...content(1), revision: 1 } }, charmModifiedVersion: 1 };
    const again = planAttachResource(attached, { application: 'wordpress', uploads: { 'test-file': content(2) } });
    expect(again.changes[0]).toMatchObject({
      set: { charmModifiedVersion: 2 },
      expect: { equals: { charmUrl: testapp.charmUrl, charmModifiedVersion: 1 } },
    });
  });

  it('changes nothing for the content in use (a retry), and refuses what the charm does not declare or a missing application', () => {
    const attached = { ...testapp, resources: { 'test-file': { ...content(1), revision: 1 } }, charmModifiedVersion: 1 };
    expect(planAttachResource(attached, { application: 'wordpress', uploads: { 'test-file': content(1) } }).changes).toEqual([]);
    expect(() => planAttachResource(testapp, { application: 'wordpress', uploads: { other: content(1) } })).toThrow(
      'unrecognized resource "other"',
    );
    expect(() => planAttachResource(undefined, { application: 'gone', uploads: {} })).toThrow('application "gone" not found');
    expect(() => planAttachResource({ ...testapp, life: 'dying' }, { application: 'wordpress', uploads: {} })).toThrow('is not alive');
  });
});

describe('resources output', () => {
  const answer = {
    application: 'testapp',
    declared: parseCharm(TESTAPP).resources!,
    used: { 'test-file': { ...content(3), revision: 2 } },
  };

  it("lists every declared resource with Juju's keys, used or not", () => {
    expect(formattedResources(answer)).toEqual([
      {
        applicationId: 'testapp',
        name: 'image',
        type: 'oci-image',
        path: '',
        revision: '-',
        fingerprint: '',
        size: 0,
        origin: 'upload',
        used: false,
      },
      {
        applicationId: 'testapp',
        name: 'test-file',
        type: 'file',
        path: 'test-file.tar',
        description: 'A test file resource to verify extensions are preserved.',
        revision: '2',
        fingerprint: content(3).fingerprint,
        size: 3,
        origin: 'upload',
        used: true,
        timestamp: content(3).timestamp,
        username: 'admin',
      },
    ]);
  });

  it('tabulates Resource, Supplied by and Revision (an upload by its time, in Go\'s "2006-02-01T15:04")', () => {
    const resources = formattedResources(answer);
    expect(combinedRevision(resources[1]!)).toBe('2026-29-11T07:05');
    expect(resourcesTable(resources, false, false)).toBe(
      'Resource   Supplied by  Revision\nimage      upload       -\ntest-file  admin        2026-29-11T07:05\n',
    );
    expect(resourcesTable(resources, true, false)).toBe('Resource   Revision\nimage      -\ntest-file  2026-29-11T07:05\n');
  });
});
