/**
 * One colour per currency and per order outcome, the same in every report whatever shows up: a
 * scale over only the values present would hand colours out by order of appearance, so a status
 * changed colour between runs, and 20 currencies shared a 10-colour scheme.
 */
import { CURRENCIES } from '../../contract/market.js';
import { ORDER_STATUSES, RETURN_REASONS } from '../../contract/order.js';

/** A Vega-Lite colour scale: each value of `domain` drawn in the colour at its index of `range`. */
export interface ColourScale {
  domain: string[];
  range: string[];
}

/** Vega's tableau20: ten hues, each dark and light. */
const TABLEAU20 = [
  '#4c78a8',
  '#9ecae9',
  '#f58518',
  '#ffbf79',
  '#54a24b',
  '#88d27a',
  '#b79a20',
  '#f2cf5b',
  '#439894',
  '#83bcb6',
  '#e45756',
  '#ff9d98',
  '#79706e',
  '#bab0ac',
  '#d67195',
  '#fcbfd2',
  '#b279a2',
  '#d6a5c9',
  '#9e765f',
  '#d8b5a5',
];
/** The first ten currencies take the dark shades, the next ten the light ones of the same hues. */
const CURRENCY_COLOURS = new Map<string, string>(
  CURRENCIES.map((c, i) => [c, TABLEAU20[i < 10 ? 2 * i : 2 * (i - 10) + 1] as string]),
);

/** Statuses in colours that say what they mean: done green, under way blues and amber, ended badly greys and red. */
const STATUS_COLOUR: Record<(typeof ORDER_STATUSES)[number], string> = {
  pending: '#9ecae9',
  delivering: '#4c78a8',
  hold: '#f58518',
  completed: '#54a24b',
  cancelled: '#79706e',
  failed: '#e45756',
};

/** Every outcome's colour; returns in purples and browns, by reason. */
const OUTCOME_COLOURS = new Map<string, string>([
  ...ORDER_STATUSES.map((status): [string, string] => [status, STATUS_COLOUR[status]]),
  ...RETURN_REASONS.map((reason, i): [string, string] => [
    `returned: ${reason}`,
    ['#b279a2', '#d6a5c9', '#9e765f', '#d8b5a5', '#7b4173'][i] as string,
  ]),
]);

/** Values no table above knows (a code newer than this report) share one grey, after the known ones. */
const UNKNOWN = '#bbbbbb';

/** The colour scale of the currencies in `rows[field]`. */
export function currencyColours(rows: readonly Record<string, unknown>[], field: string): ColourScale {
  return scaleOf(rows, field, CURRENCY_COLOURS);
}

/** The colour scale of the order outcomes in `rows[field]` (a status, or `returned: <reason>`). */
export function outcomeColours(rows: readonly Record<string, unknown>[], field: string): ColourScale {
  return scaleOf(rows, field, OUTCOME_COLOURS);
}

/** The values present, in the table's order then unknown ones sorted, each with its fixed colour. */
function scaleOf(rows: readonly Record<string, unknown>[], field: string, colours: Map<string, string>) {
  const present = new Set(rows.map((row) => String(row[field])));
  const known = [...colours.keys()].filter((value) => present.has(value));
  const unknown = [...present].filter((value) => !colours.has(value)).sort();
  return {
    domain: [...known, ...unknown],
    range: [...known.map((value) => colours.get(value) as string), ...unknown.map(() => UNKNOWN)],
  };
}
