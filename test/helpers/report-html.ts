/** Reading a report page back: its parse errors, its charts' embedded specifications, and every address it names. */
import { readFileSync } from 'node:fs';
import { type DefaultTreeAdapterMap, parse } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** A report page parsed by a real HTML parser (parse5), with the errors it met. */
export interface ParsedReport {
  html: string;
  errors: string[];
  elements: Element[];
  /** Per chart id, the Vega-Lite specification embedded in the page. */
  specs: Map<string, { data: { values: Record<string, unknown>[] } } & Record<string, unknown>>;
  /** Ids of the `<section>`s, in order. */
  sections: string[];
}

/** Parses the report file at `path`. */
export function readReportPage(path: string): ParsedReport {
  const html = readFileSync(path, 'utf8');
  const errors: string[] = [];
  const document = parse(html, {
    onParseError: (error) => errors.push(`${error.code} at ${error.startLine}:${error.startCol}`),
  });
  const elements: Element[] = [];
  const walk = (node: Node) => {
    if ('tagName' in node) elements.push(node);
    const children =
      'content' in node ? node.content.childNodes : 'childNodes' in node ? node.childNodes : [];
    for (const child of children) walk(child);
  };
  walk(document);
  const specs: ParsedReport['specs'] = new Map();
  for (const element of elements) {
    const chart = attribute(element, 'data-chart');
    if (element.tagName !== 'script' || chart === null) continue;
    const text = element.childNodes.map((n) => ('value' in n ? n.value : '')).join('');
    specs.set(chart, JSON.parse(text));
  }
  const sections = elements.filter((e) => e.tagName === 'section').map((e) => attribute(e, 'id') ?? '');
  return { html, errors, elements, specs, sections };
}

/** The value of an element's attribute, or null. */
export function attribute(element: Element, name: string): string | null {
  return element.attrs.find((a) => a.name === name)?.value ?? null;
}

/**
 * Every address in the page that a browser could load or follow outside the page: attributes that
 * name a resource (unless a `#fragment` of the page), `url(…)` in styles (unless `url(#…)`), any
 * scheme-qualified URL in the text, and elements that load things.
 */
export function externalReferences(page: ParsedReport): string[] {
  const found: string[] = [];
  const linking = new Set([
    'href',
    'src',
    'xlink:href',
    'action',
    'formaction',
    'srcset',
    'poster',
    'data',
    'background',
  ]);
  for (const element of page.elements) {
    if (['link', 'img', 'iframe', 'object', 'embed', 'audio', 'video', 'base'].includes(element.tagName))
      found.push(`<${element.tagName}>`);
    for (const { name, value } of element.attrs)
      if (linking.has(name) && !value.startsWith('#')) found.push(`${name}="${value}"`);
    if (element.tagName === 'script' && attribute(element, 'type') !== 'application/json')
      found.push('<script> that runs');
  }
  for (const match of page.html.matchAll(/url\(\s*['"]?([^)'"]*)/g))
    if (!match[1]?.startsWith('#')) found.push(match[0]);
  for (const match of page.html.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]*/gi)) found.push(match[0]);
  for (const match of page.html.matchAll(/@import/g)) found.push(match[0]);
  return found;
}
