// Registers a module resolve hook that writes every package module the process loads to stderr,
// one `imported <url>` line each: what a command loads, without timing it.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/node_modules/')) process.stderr.write('imported ' + resolved.url + '\\n');
  return resolved;
}`)}`,
);
