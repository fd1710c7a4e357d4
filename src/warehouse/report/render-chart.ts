/** Vega-Lite specifications compiled and rendered to SVG in Node: no browser, no canvas. */
import type { TopLevelSpec } from 'vega-lite';

/**
 * Vega and Vega-Lite, loaded at the first chart: a daemon that never writes a report does not
 * carry them (34 MiB of RSS, 9.4 MiB of it V8 heap, for a process that imports them).
 */
const renderer = lazily(async () => {
  const [{ loader, parse, View }, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  // Refuses every load: a report's charts carry their data inline and must never reach out.
  const noLoads = loader();
  noLoads.load = (uri: string) => Promise.reject(new Error(`a report chart may not load ${uri}`));
  return (spec: TopLevelSpec) => new View(parse(compile(spec).spec), { renderer: 'none', loader: noLoads });
});

/** The standalone SVG document of a Vega-Lite specification. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = (await renderer())(spec);
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * The SVG made fit to inline in an HTML page: no namespace declarations (HTML does not need them),
 * every id prefixed with `prefix` (several charts in one page must not share a clip path's id),
 * and a title for screen readers.
 */
export function inlineSvg(svg: string, prefix: string, title: string): string {
  return svg
    .replace(/\s+xmlns(:xlink)?="[^"]*"/g, '')
    .replace(/\bid="([^"]+)"/g, `id="${prefix}-$1"`)
    .replace(/url\(#([^)]+)\)/g, `url(#${prefix}-$1)`)
    .replace(/href="#([^"]+)"/g, `href="#${prefix}-$1"`)
    .replace(/^<svg\b/, `<svg role="img" aria-label="${escapeHtml(title)}"`);
}

/** Text safe inside HTML elements and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** `load` run once, at the first call; every call gets its result. */
function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}
