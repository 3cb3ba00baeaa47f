import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAuditBatcher } from './audit-batcher.js';

/** A writer that records each batch; `fail` makes the next calls throw. */
function recorder(options: { delayMs?: number } = {}) {
  const batches: number[][] = [];
  let failures = 0;
  const write = async (records: number[]) => {
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (failures > 0) {
      failures -= 1;
      throw new Error('database refused');
    }
    batches.push([...records]);
  };
  return { batches, write, written: () => batches.flat(), fail: (n: number) => (failures = n) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('audit batcher', () => {
  it('writes nothing until the window ends or flush() is called; flush writes everything, in order', async () => {
    const r = recorder();
    const batcher = createAuditBatcher(r.write, { maxDelayMs: 60_000 });
    for (let i = 1; i <= 5; i++) batcher.add(i);
    expect(r.written()).toEqual([]);
    expect(batcher.pending).toBe(5);
    await batcher.flush();
    expect(r.batches).toEqual([[1, 2, 3, 4, 5]]);
    expect(batcher.pending).toBe(0);
    await batcher.close();
  });

  it('writes a batch at the latest maxDelayMs after its first record', async () => {
    vi.useFakeTimers();
    const r = recorder();
    const batcher = createAuditBatcher(r.write, { maxDelayMs: 100 });
    batcher.add(1);
    await vi.advanceTimersByTimeAsync(50);
    batcher.add(2);
    expect(r.written()).toEqual([]);
    await vi.advanceTimersByTimeAsync(50);
    expect(r.batches).toEqual([[1, 2]]);
    await batcher.close();
  });

  it('writes as soon as maxRecords are queued', async () => {
    const r = recorder();
    const batcher = createAuditBatcher(r.write, { maxDelayMs: 60_000, maxRecords: 3 });
    batcher.add(1);
    batcher.add(2);
    expect(r.written()).toEqual([]);
    batcher.add(3);
    await batcher.flush();
    expect(r.batches[0]).toEqual([1, 2, 3]);
    await batcher.close();
  });

  it('keeps the order across overlapping flushes with a slow database', async () => {
    const r = recorder({ delayMs: 20 });
    const batcher = createAuditBatcher(r.write, { maxDelayMs: 60_000, maxRecords: 2 });
    for (let i = 1; i <= 9; i++) batcher.add(i); // full batches start flushing while others queue
    await batcher.flush();
    expect(r.written()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await batcher.close();
  });

  it('close() writes what is pending; a record added afterwards is written at once', async () => {
    const r = recorder();
    const batcher = createAuditBatcher(r.write, { maxDelayMs: 60_000 });
    batcher.add(1);
    batcher.add(2);
    await batcher.close();
    expect(r.written()).toEqual([1, 2]);
    batcher.add(3);
    await batcher.flush();
    expect(r.written()).toEqual([1, 2, 3]);
  });

  it('keeps refused records, in order and ahead of newer ones, for the next flush; bounded', async () => {
    const r = recorder();
    const errors: { retrying: number; dropped: number }[] = [];
    const batcher = createAuditBatcher(r.write, { maxDelayMs: 60_000, maxPending: 4, onError: (_err, context) => errors.push(context) });
    batcher.add(1);
    batcher.add(2);
    r.fail(1);
    await batcher.flush();
    expect(r.written()).toEqual([]);
    expect(errors).toEqual([{ retrying: 2, dropped: 0 }]);
    batcher.add(3);
    await batcher.flush();
    expect(r.written()).toEqual([1, 2, 3]);

    for (let i = 4; i <= 6; i++) batcher.add(i);
    r.fail(1);
    await batcher.flush();
    for (let i = 7; i <= 8; i++) batcher.add(i);
    r.fail(1);
    await batcher.flush(); // 5 queued, bound 4: the oldest goes
    expect(errors.at(-1)).toEqual({ retrying: 4, dropped: 1 });
    await batcher.close();
    expect(r.written()).toEqual([1, 2, 3, 5, 6, 7, 8]);
  });
});
