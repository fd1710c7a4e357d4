/**
 * What a browser drew of each chart of a report page: its texts, its legend, its bars, lines and
 * shades where they fall on screen. Read in the page by `page.evaluate(READ_CHART_MARKS)` (a script,
 * as the project's types hold no DOM).
 */

/** A mark's horizontal extent on screen, and its colour. */
export interface DrawnBox {
  colour: string;
  left: number;
  right: number;
  /** Where it falls across its view's plot: 0 at the left edge, 1 at the right. */
  from: number;
  to: number;
}

/** One chart as drawn. */
export interface DrawnChart {
  id: string;
  /** Every text in the SVG (axis labels, legend labels, titles). */
  texts: string[];
  /** Each legend entry: its label and its symbol's colour. */
  legend: { label: string; colour: string }[];
  /** Bars and shaded spans: every path of a rect mark. */
  rects: DrawnBox[];
  /** The colour of each line drawn. */
  lines: string[];
}

/** The script: an array of {@link DrawnChart}, one per `section > figure > svg` of the page. */
export const READ_CHART_MARKS = `(() => {
  const plotOf = (element) => {
    for (let node = element.parentElement; node; node = node.parentElement) {
      const background = node.querySelector(':scope > path.background');
      if (background && node.closest('.role-scope, .role-frame')) return background.getBoundingClientRect();
    }
    return null;
  };
  return [...document.querySelectorAll('section > figure > svg')].map((svg) => ({
    id: svg.closest('section').id,
    texts: [...svg.querySelectorAll('text')].map((t) => t.textContent),
    legend: [...svg.querySelectorAll('.role-legend-entry .role-scope > g > g')].map((entry) => ({
      label: entry.querySelector('.role-legend-label text')?.textContent ?? '',
      colour: entry.querySelector('.role-legend-symbol path')?.getAttribute('fill') ?? '',
    })),
    rects: [...svg.querySelectorAll('.mark-rect.role-mark path')].map((path) => {
      const box = path.getBoundingClientRect();
      const plot = plotOf(path);
      return {
        colour: path.getAttribute('fill'),
        left: box.left,
        right: box.right,
        from: plot ? (box.left - plot.left) / plot.width : NaN,
        to: plot ? (box.right - plot.left) / plot.width : NaN,
      };
    }),
    lines: [...svg.querySelectorAll('.mark-line.role-mark path')].map((path) => path.getAttribute('stroke')),
  }));
})()`;
