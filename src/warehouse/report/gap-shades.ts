/**
 * Spans in which nothing was collected, shaded behind the lines of the charts the collector feeds
 * (minAsk, FX): without the shade, a line across a gap reads as a price that held still.
 */
import type { CollectionGap } from './read-report.js';
import type { ReportWindow } from './report-window.js';
import { timeAxis } from './time-axis.js';

/** The caption's word on the shaded spans. */
export function gapNote(gaps: readonly CollectionGap[]): string {
  const minutes = gaps.reduce((sum, g) => sum + (Date.parse(g.to_t) - Date.parse(g.from_t)) / 60_000, 0);
  return `Shaded: ${gaps.length === 1 ? 'a span' : `${gaps.length} spans`} (${Math.round(minutes)} minutes) in which nothing was collected, so the lines there join what was seen on either side.`;
}

/** The shade colour, light enough for the lines over it to read. */
export const GAP_COLOUR = '#e45756';

/**
 * `spec` (one view, or a vconcat of views, each with its width, height and a time x encoding)
 * with each view drawn over a layer that shades `gaps`, on the view's own time axis.
 */
export function withGaps(spec: object, gaps: readonly CollectionGap[], window: ReportWindow): object {
  const shaded = (view: Record<string, unknown>) => {
    const { width, height, ...drawn } = view;
    const x = (drawn.encoding as { x: { title: string } }).x;
    // The view's axis, not none: in a layer, one without an axis takes the shared one away. Its
    // domain once, in the view: given in both, Vega-Lite warns of a conflict between equal domains.
    const axis = { ...timeAxis(x.title, window, 'from_t'), scale: { type: 'utc' } };
    const shade = {
      data: { values: gaps },
      mark: { type: 'rect', color: GAP_COLOUR, opacity: 0.12 },
      encoding: { x: axis, x2: { field: 'to_t' } },
    };
    return { width, height, layer: [shade, drawn] };
  };
  const { vconcat } = spec as { vconcat?: Record<string, unknown>[] };
  return vconcat ? { ...spec, vconcat: vconcat.map(shaded) } : shaded(spec as Record<string, unknown>);
}
