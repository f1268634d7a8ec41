import { describe, expect, it } from 'vitest';
import { parseActions, validateActionParams } from '#shared/domain/actions.js';
import { parseCharm } from '#shared/domain/charm.js';

const BACKUP = `
backup:
  description: Take a backup.
  params:
    target:
      type: string
      description: where to
    compression:
      type: object
      properties:
        kind: {type: string, enum: [gzip, xz], default: gzip}
        quality: {type: integer, default: 5}
  required: [target]
snapshot:
open-ended:
  additionalProperties: true
`;

describe('actions.yaml', () => {
  it('reads each action as one JSON Schema object, closed unless it says otherwise', () => {
    const actions = parseActions('db', BACKUP);
    expect(Object.keys(actions).sort()).toEqual(['backup', 'open-ended', 'snapshot']);
    expect(actions.backup).toMatchObject({ description: 'Take a backup.', parallel: false, executionGroup: '' });
    expect(actions.backup!.params).toMatchObject({
      type: 'object',
      title: 'backup',
      required: ['target'],
      additionalProperties: false,
      properties: { target: { type: 'string' } },
    });
    expect(actions.snapshot!.description).toBe('No description');
    expect(actions['open-ended']!.params.additionalProperties).toBe(true);
  });

  it("refuses what Juju refuses, in Juju's words", () => {
    expect(() => parseActions('db', 'Backup: {}')).toThrow('actions.yaml: bad action name Backup');
    expect(() => parseActions('db', 'juju-run: {}')).toThrow(
      'actions.yaml: cannot use action name juju-run: the "juju-" prefix is reserved',
    );
    expect(() => parseActions('db', 'a:\n  params:\n    x: {$ref: "#/y"}')).toThrow(
      'actions.yaml: schema key "$ref" not compatible with this version of juju',
    );
    expect(() => parseActions('db', 'a:\n  required: x')).toThrow('actions.yaml: value for schema key "required" must be a YAML list');
    expect(() => parseActions('db', 'a:\n  params: [x]')).toThrow('actions.yaml: params failed to parse as a map');
    expect(() => parseActions('db', 'a:\n  params:\n    x: {type: nonsense}')).toThrow(
      'actions.yaml: invalid params schema for action schema a',
    );
    expect(() => parseActions('db', 'a: [')).toThrow('actions.yaml: invalid YAML');
  });

  it('travels with the charm: parseCharm refuses a bad actions.yaml and keeps a good one', () => {
    const meta = 'name: db\nseries: [jammy]\n';
    expect(parseCharm(meta, undefined, BACKUP).actions?.backup?.description).toBe('Take a backup.');
    expect(parseCharm(meta).actions).toBeUndefined();
    expect(() => parseCharm(meta, undefined, 'BAD: {}')).toThrow('bad action name BAD');
  });
});

describe('action parameters', () => {
  const { backup, 'open-ended': open } = parseActions('db', BACKUP);

  it('fills in defaults and leaves the given params untouched', () => {
    const given = { target: '/srv', compression: { quality: 9 } };
    expect(validateActionParams(backup!, given)).toEqual({ target: '/srv', compression: { kind: 'gzip', quality: 9 } });
    expect(given).toEqual({ target: '/srv', compression: { quality: 9 } });
  });

  it("refuses missing, unknown and mistyped params in gojsonschema's words", () => {
    expect(() => validateActionParams(backup!, {})).toThrow('validation failed: (root) : target is required');
    expect(() => validateActionParams(backup!, { target: 'x', tagret: 'y' })).toThrow(
      'validation failed: (root) : Additional property tagret is not allowed',
    );
    expect(() => validateActionParams(backup!, { target: 3 })).toThrow(
      'validation failed: target : Invalid type. Expected: string, given: integer',
    );
    expect(() => validateActionParams(backup!, { target: 'x', compression: { kind: 'zip' } })).toThrow(
      'compression.kind : compression.kind must be one of the following: "gzip", "xz"',
    );
    expect(validateActionParams(open!, { anything: 1 })).toEqual({ anything: 1 });
  });
});
