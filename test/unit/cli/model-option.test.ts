import { describe, expect, it } from 'vitest';
import { parseModelOption } from '../../../cli/context.js';

describe('-m [controller:]model', () => {
  it("names a model of the current controller, a controller's current model, or both", () => {
    expect(parseModelOption(undefined)).toEqual({});
    expect(parseModelOption('staging')).toEqual({ model: 'staging' });
    expect(parseModelOption('aws:')).toEqual({ controller: 'aws' });
    expect(parseModelOption('aws:prod')).toEqual({ controller: 'aws', model: 'prod' });
  });
});
