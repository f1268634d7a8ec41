import { describe, expect, it } from 'vitest';
import { parseModelOption } from '../../../cli/context.js';

describe('-m [controller:][owner/]model', () => {
  it("names a model of the current controller, a controller's current model, or both", () => {
    expect(parseModelOption(undefined)).toEqual({});
    expect(parseModelOption('staging')).toEqual({ model: 'staging' });
    expect(parseModelOption('aws:')).toEqual({ controller: 'aws' });
    expect(parseModelOption('aws:prod')).toEqual({ controller: 'aws', model: 'prod' });
  });

  it("takes Juju's qualified names, [controller:][owner/]model", () => {
    expect(parseModelOption('admin/prod')).toEqual({ owner: 'admin', model: 'prod' });
    expect(parseModelOption('aws:admin/prod')).toEqual({ controller: 'aws', owner: 'admin', model: 'prod' });
    expect(parseModelOption('bob/prod')).toEqual({ owner: 'bob', model: 'prod' });
  });
});
