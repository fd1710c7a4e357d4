/**
 * The report's colours: every currency of the FX table its own colour, and each order outcome one
 * colour whatever else a report shows, so that a status reads the same in every run.
 */
import { describe, expect, it } from 'vitest';
import { CURRENCIES } from '../../../src/contract/market.js';
import { ORDER_STATUSES, RETURN_REASONS } from '../../../src/contract/order.js';
import { currencyColours, outcomeColours } from '../../../src/warehouse/report/fixed-colours.js';

const rowsOf = (values: readonly string[]) => values.map((value) => ({ v: value }));
const colourOf = (scale: { domain: string[]; range: string[] }, value: string) =>
  scale.range[scale.domain.indexOf(value)];

describe('the report colours', () => {
  it('gives each of the 20 currencies a colour of its own', () => {
    const scale = currencyColours(rowsOf(CURRENCIES), 'v');
    expect(scale.domain).toEqual([...CURRENCIES]);
    expect(new Set(scale.range).size).toBe(CURRENCIES.length);
  });

  it('keeps a currency and an outcome in one colour whatever else the report shows', () => {
    const some = currencyColours(rowsOf(['SEK', 'EUR']), 'v');
    const all = currencyColours(rowsOf(CURRENCIES), 'v');
    expect(colourOf(some, 'SEK')).toBe(colourOf(all, 'SEK'));
    const outcomes = [...ORDER_STATUSES, ...RETURN_REASONS.map((r) => `returned: ${r}`)];
    const full = outcomeColours(rowsOf(outcomes), 'v');
    expect(new Set(full.range).size).toBe(outcomes.length);
    for (const run of [['failed'], ['completed', 'failed'], ['returned: declined', 'failed', 'hold']])
      for (const outcome of run)
        expect(colourOf(outcomeColours(rowsOf(run), 'v'), outcome)).toBe(colourOf(full, outcome));
  });

  it('lists only the values present, known ones first, and greys an unknown one', () => {
    const scale = outcomeColours(rowsOf(['refunded_later', 'completed']), 'v');
    expect(scale).toEqual({ domain: ['completed', 'refunded_later'], range: ['#54a24b', '#bbbbbb'] });
  });
});
