// A charm's actions (actions.yaml), read as Juju 3.6 reads them
// (https://github.com/juju/juju/blob/3.6/internal/charm/actions.go, ReadActionsYaml): each
// action becomes one JSON Schema object whose `properties` are its `params`; `description`,
// `title`, `required`, `parallel` and `execution-group` are the action's own keys, and any other
// key (`additionalProperties`, `dependencies`...) goes into the schema as written. Juju closes
// the schema (`additionalProperties: false`) unless the action says otherwise, so a typo in a
// parameter name is refused rather than silently ignored.
//
// Parameters are checked with ajv (JSON Schema draft-07, a superset of the draft-04 keywords
// charms use), and the schema's defaults are filled in, as Juju's InsertDefaults does.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parseYaml } from './yaml.js';
import { invalidArgument, errorMessage } from './errors.js';

export interface ActionSpec {
  description: string;
  parallel: boolean;
  executionGroup: string;
  /** The whole JSON Schema of the action's parameters (type object, properties, required...). */
  params: Record<string, unknown>;
}

export type Actions = Record<string, ActionSpec>;

const ACTIONS = 'actions.yaml';

/** Juju's actionNameRule: lowercase letters, digits and inner hyphens. */
export const ACTION_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** Juju refuses `$ref` and `$schema` anywhere in a schema. */
const PROHIBITED_SCHEMA_KEYS = new Set(['$ref', '$schema']);

// Made on first use: making one compiles JSON Schema's meta-schemas (~13 ms of CPU, measured),
// which every machine agent would pay at start for actions it may never check.
let validator: Ajv | undefined;
const ajv = () => (validator ??= new Ajv({ strict: false, allErrors: true, useDefaults: true }));

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const fail = (message: string) => invalidArgument(`${ACTIONS}: ${message}`);

/** Juju's reservedName (metadata rules apply to actions too): `juju` and `juju-*` are Juju's own. */
function reservedReason(charmName: string, name: string): string | undefined {
  if (charmName.startsWith('juju-')) return undefined;
  if (name === 'juju') return '"juju" is a reserved name';
  if (name.startsWith('juju-')) return 'the "juju-" prefix is reserved';
  return undefined;
}

function refuseProhibitedKeys(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(refuseProhibitedKeys);
  if (!isMap(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (PROHIBITED_SCHEMA_KEYS.has(key)) throw fail(`schema key "${key}" not compatible with this version of juju`);
    refuseProhibitedKeys(inner);
  }
}

function mustBe<T>(value: unknown, check: (v: unknown) => v is T, key: string, what: string): T {
  if (!check(value)) throw fail(`value for schema key "${key}" must be ${what}`);
  return value;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isList = (v: unknown): v is unknown[] => Array.isArray(v);

/** Parses and validates actions.yaml; undefined or empty text is a charm without actions. */
export function parseActions(charmName: string, source: string | undefined): Actions {
  if (source === undefined) return {};
  let doc: unknown;
  try {
    doc = parseYaml(source);
  } catch (e) {
    throw fail(`invalid YAML: ${errorMessage(e).split('\n')[0] ?? ''}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isMap(doc)) throw fail('must be a YAML mapping of action name to action');
  const actions: Actions = {};
  for (const [name, raw] of Object.entries(doc)) {
    if (!ACTION_NAME.test(name)) throw fail(`bad action name ${name}`);
    const reserved = reservedReason(charmName, name);
    if (reserved) throw fail(`cannot use action name ${name}: ${reserved}`);
    // `backup:` with nothing under it is an action without description or params.
    const spec = raw ?? {};
    if (!isMap(spec)) throw fail(`action "${name}" must be a mapping (description, params...)`);
    refuseProhibitedKeys(spec);
    let description = 'No description';
    let parallel = false;
    let executionGroup = '';
    const schema: Record<string, unknown> = {
      description,
      type: 'object',
      title: name,
      properties: {},
      additionalProperties: false,
    };
    for (const [key, value] of Object.entries(spec)) {
      switch (key) {
        case 'description':
          description = mustBe(value, isString, key, 'a string');
          schema.description = description;
          break;
        case 'title':
          schema.title = mustBe(value, isString, key, 'a string');
          break;
        case 'required':
          schema.required = mustBe(value, isList, key, 'a YAML list');
          break;
        case 'parallel':
          parallel = mustBe(value, isBoolean, key, 'a bool');
          break;
        case 'execution-group':
          executionGroup = mustBe(value, isString, key, 'a string');
          break;
        case 'params':
          // `params:` with nothing under it: no parameters.
          if (value !== null && !isMap(value)) throw fail('params failed to parse as a map');
          schema.properties = value ?? {};
          break;
        default:
          schema[key] = value;
      }
    }
    try {
      ajv().compile(schema);
    } catch (e) {
      throw fail(`invalid params schema for action schema ${name}: ${errorMessage(e)}`);
    }
    actions[name] = { description, parallel, executionGroup, params: schema };
  }
  return actions;
}

const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(spec: ActionSpec): ValidateFunction {
  let validate = compiled.get(spec.params);
  if (!validate) {
    validate = ajv().compile(spec.params);
    compiled.set(spec.params, validate);
  }
  return validate;
}

/** gojsonschema's field names: `(root)` for the whole document, else the dotted path. */
function field(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.length ? path.join('.') : '(root)';
}

const JSON_TYPE = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

/** One error in gojsonschema's words, which Juju prints after `validation failed: `. */
function describe(error: ErrorObject, data: unknown): string {
  const at = field(error);
  const value = error.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>((v, p) => (isMap(v) || Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined), data);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${at} : Additional property ${String(p.additionalProperty)} is not allowed`;
    case 'required':
      return `${at} : ${String(p.missingProperty)} is required`;
    case 'type':
      return `${at} : Invalid type. Expected: ${String(p.type)}, given: ${JSON_TYPE(value)}`;
    case 'enum':
      return `${at} : ${at} must be one of the following: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${at} : ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Checks a task's parameters against the action's schema and fills in its defaults (a new
 * object: the caller's is untouched). Throws Juju's `validation failed: ...` for bad ones.
 */
export function validateActionParams(spec: ActionSpec, params: Record<string, unknown>): Record<string, unknown> {
  const withDefaults = structuredClone(params);
  const validate = validatorOf(spec);
  if (validate(withDefaults)) return withDefaults;
  const errors = (validate.errors ?? []).map((e) => describe(e, withDefaults));
  throw invalidArgument(`validation failed: ${errors.join('; ')}`);
}
