// A view's request names what the agent's last view showed (agent/view.ts, viewRequest), for the
// API to read with the caller's machine; a machine beyond the schema's bound names nothing.
import { describe, expect, it } from 'vitest';
import { agentOperations, MAX_VIEW_READ_AHEAD } from '#shared/api/agent-requests.js';
import { viewRequest, type AgentView } from '../../../agent/view.js';

const viewWith = (units: number, relations: number) =>
  ({
    model: 'default',
    machine: { id: '0' },
    units: Array.from({ length: units }, (_, i) => ({ name: `app/${i}` })),
    applications: [],
    relations: Array.from({ length: relations }, (_, i) => ({ key: `app:peer${i}` })),
  }) as unknown as AgentView;

describe('a view request', () => {
  it('names nothing before the first view', () => {
    expect(viewRequest(undefined)).toEqual({});
  });

  it("names the last view's units and relations, as the API's schema takes them", () => {
    const request = viewRequest(viewWith(2, 1));
    expect(request).toEqual({ known: { units: ['app/0', 'app/1'], relations: ['app:peer0'] } });
    expect(agentOperations.view.request.parse(request)).toEqual(request);
  });

  it.each([
    [MAX_VIEW_READ_AHEAD + 1, 0],
    [0, MAX_VIEW_READ_AHEAD + 1],
  ])('names nothing for %i units and %i relations, more than the schema takes', (units, relations) => {
    expect(viewRequest(viewWith(units, relations))).toEqual({});
  });
});
