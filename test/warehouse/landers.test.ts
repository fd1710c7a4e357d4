import { describe, expect, it } from 'vitest';
import { countBatchRows, mergeBatches } from '../../src/warehouse/index.js';
import { LANDERS } from '../../src/warehouse/landing/landers.js';
import { newEvent, T0 } from './fixtures.js';

describe('the landers registry', () => {
  it('declares each batch field once, in apply order', () => {
    expect(LANDERS.map((l) => l.field)).toEqual([
      'events',
      'observations',
      'gone',
      'snapshot',
      'minask',
      'fx',
      'gaps',
      'ledger',
      'accountStates',
      'state',
    ]);
  });

  it('counts a batch by each field its lander counts, state excluded, an empty batch as one', () => {
    const batch = {
      source: 'x',
      events: [newEvent('e1', 'A', T0), newEvent('e2', 'B', T0)],
      fx: { updatedAt: T0, fetchedAt: T0, rates: { EUR: 0.9, GBP: 0.8 } },
      gaps: [{ kind: 'restart', startedAt: T0, endedAt: null, rows: 0, detail: '' }],
      state: { a: '1', b: '2' },
    };
    expect(countBatchRows(batch)).toBe(5);
    expect(countBatchRows({ source: 'x', state: { a: '1' } })).toBe(1);
  });

  it('merges by each lander rule: appended gaps, state by key, one FX set per batch', () => {
    const gap = { kind: 'restart', startedAt: T0, endedAt: null, rows: 0, detail: '' };
    const fx = { updatedAt: T0, fetchedAt: T0, rates: { EUR: 0.9 } };
    const merged = mergeBatches([
      { source: 'x', gaps: [gap], state: { a: '1' } },
      { source: 'x', gaps: [gap], fx, state: { a: '2', b: '1' } },
      { source: 'x', fx },
    ]);
    expect(merged.map((b) => [b.gaps?.length, b.fx === undefined, b.state])).toEqual([
      [2, false, { a: '2', b: '1' }],
      [undefined, false, undefined],
    ]);
  });
});
