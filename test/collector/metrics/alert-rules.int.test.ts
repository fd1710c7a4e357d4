/**
 * The collector's Prometheus alerting rules (src/collector/metrics/alerts.yml) pass `promtool check
 * rules` and fire as alerts.test.yml expects under `promtool test rules` (where promtool is installed).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { projectPath } from '../../../src/shared/project-root.js';
import { promtool, which } from '../../helpers/prometheus.js';

const RULES = projectPath('src', 'collector', 'metrics', 'alerts.yml');
const TESTS = fileURLToPath(new URL('alerts.test.yml', import.meta.url));

describe('the alerting rules', () => {
  it('are valid and fire when the collector is down or absent, or a source is stale, failing, lagging or rejecting payloads', async (context) => {
    if (!(await which('promtool')))
      return context.skip('promtool is not installed (apt-get install prometheus)');
    const checked = await promtool(['check', 'rules', RULES]);
    expect(checked.output).toMatch(/SUCCESS: 6 rules found/);
    expect(checked.code).toBe(0);
    const tested = await promtool(['test', 'rules', TESTS]);
    expect(tested.output).toMatch(/SUCCESS/);
    expect(tested.code).toBe(0);
  });
});
