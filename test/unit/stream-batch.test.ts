// The one partial-batch rule (functions/stream-batch.ts) that both stream consumers keep.
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { streamBatchHandler } from '../../functions/stream-batch.js';

const record = (sequenceNumber?: string): DynamoDBRecord => ({
  eventName: 'MODIFY',
  dynamodb: sequenceNumber === undefined ? {} : { SequenceNumber: sequenceNumber },
});

describe('streamBatchHandler', () => {
  it('reports each record whose handler threw by its sequence number, and handles the others', async () => {
    const handled: string[] = [];
    const handler = streamBatchHandler(
      () => async (r) => {
        const seq = r.dynamodb!.SequenceNumber!;
        if (seq === '2' || seq === '4') throw new Error(`record ${seq} failed`);
        handled.push(seq);
      },
      { inParallel: false },
    );
    const response = await handler({ Records: ['1', '2', '3', '4'].map(record) });
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }, { itemIdentifier: '4' }] });
    expect(handled).toEqual(['1', '3']);
  });

  it('reports every record when all fail, rather than throwing', async () => {
    const handler = streamBatchHandler(
      () => async () => {
        throw new Error('down');
      },
      { inParallel: true },
    );
    expect(await handler({ Records: ['7', '8'].map(record) })).toEqual({
      batchItemFailures: [{ itemIdentifier: '7' }, { itemIdentifier: '8' }],
    });
  });

  it('fails the whole batch when a record has no sequence number, handling none of it', async () => {
    let calls = 0;
    const handler = streamBatchHandler(
      () => async () => {
        calls++;
      },
      { inParallel: false },
    );
    await expect(handler({ Records: [record('1'), record()] })).rejects.toThrow(/record 1 of the batch has no SequenceNumber/);
    expect(calls).toBe(0);
  });

  it('gives each batch its own state, from the records of that batch', async () => {
    const seen: string[][] = [];
    const handler = streamBatchHandler(
      (records) => {
        const batch: string[] = [];
        seen.push(batch);
        expect(records).toHaveLength(2);
        return async (r) => void batch.push(r.dynamodb!.SequenceNumber!);
      },
      { inParallel: false },
    );
    await handler({ Records: [record('1'), record('2')] });
    await handler({ Records: [record('3'), record('4')] });
    expect(seen).toEqual([
      ['1', '2'],
      ['3', '4'],
    ]);
  });
});
