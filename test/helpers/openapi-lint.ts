/** Lints an OpenAPI document with Redocly (`recommended`) and Spectral (`spectral:oas`), their default rule sets. */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

/** One problem a linter reports. */
export interface LintProblem {
  linter: 'redocly' | 'spectral';
  severity: 'error' | 'warning';
  rule: string;
  message: string;
  /** JSON pointer-like path of the node, e.g. `paths./orders.post.responses`. */
  where: string;
}

/** Redocly's `recommended` rule set, as `redocly lint` runs it without a config file. */
export async function lintWithRedocly(doc: object): Promise<LintProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: JSON.stringify(doc, null, 2),
    absoluteRef: 'openapi.json',
    config,
  });
  return problems
    .filter((p) => p.severity === 'error' || p.severity === 'warn')
    .map((p) => ({
      linter: 'redocly',
      severity: p.severity === 'error' ? 'error' : 'warning',
      rule: p.ruleId,
      message: p.message,
      where: p.location[0]?.pointer?.replace(/^#\//, '').replaceAll('/', '.') ?? '',
    }));
}

/** Spectral's `spectral:oas` rule set, as `spectral lint` runs it with `extends: spectral:oas`. */
export async function lintWithSpectral(doc: object): Promise<LintProblem[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas] } as never);
  const results = await spectral.run(new Document(JSON.stringify(doc, null, 2), parsers.Json));
  // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
  return results
    .filter((r) => r.severity <= 1)
    .map((r) => ({
      linter: 'spectral',
      severity: r.severity === 0 ? 'error' : 'warning',
      rule: String(r.code),
      message: r.message,
      where: r.path.join('.'),
    }));
}
