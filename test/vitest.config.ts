/** Vitest projects: `unit` (in-process, no sockets or child processes) and `integration` (the rest). */
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The repository root: every glob below is relative to it, so compiled copies in `.build/` never match. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const TEST_NAME = '*.{test,spec}.?(c|m)[jt]s?(x)';

/**
 * Tests that start a service, listen on a socket or spawn a process say so in their name
 * (`*.int.test.ts`); every other test file, in any folder present or future, is a unit test.
 */
const INTEGRATION_NAME = '*.int.{test,spec}.?(c|m)[jt]s?(x)';

/**
 * The files that take longest, longest first: they start first and in this order, and the many
 * short files fill in after them, so that no long file is left running alone at the end. Vitest
 * orders a fresh clone by file size, which would start a short file that waits long (a kill loop,
 * a schedule) last.
 */
const LONGEST = [
  'test/collector/no-loss.int.test.ts',
  'test/warehouse/lake/ray-data.int.test.ts',
  'test/cli/serve.int.test.ts',
  'test/collector/models.int.test.ts',
  'test/cli/lake.int.test.ts',
  'test/cli/sql.int.test.ts',
  'test/collector/account-no-loss.int.test.ts',
  'test/collector/collector.int.test.ts',
  'test/browser/report.int.test.ts',
  'test/warehouse/lake/lake-kill.int.test.ts',
  'test/warehouse/lake/lake-rebuild.int.test.ts',
  'test/cli/slow-clients.int.test.ts',
  'test/cli/models.int.test.ts',
  'test/warehouse/lake/lake-move.test.ts',
  'test/warehouse/export.int.test.ts',
  'test/cli/start.int.test.ts',
  'test/collector/fresh-after-kill.int.test.ts',
];

/** Vitest's order (the last run's durations, else file size), except that the longest files go first, in LONGEST's order. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => LONGEST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
    const longest = sorted.filter((spec) => rank(spec) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...longest, ...sorted.filter((spec) => rank(spec) < 0)];
  }
}

export default defineConfig({
  root: ROOT,
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Most integration time is spent waiting on sockets and child processes: a full run with one
    // worker per core kept 1.1 of 2 cores busy (15.7 min of wall time, 17.7 of CPU), so three
    // workers on two cores fill the waits.
    maxWorkers: '150%',
    // A fresh clone has no durations of a last run, and would start the longest file late.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [`test/**/${TEST_NAME}`],
          exclude: [...configDefaults.exclude, `test/**/${INTEGRATION_NAME}`],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [`test/**/${INTEGRATION_NAME}`],
          // The `market` command they spawn is the compiled one, built here when the sources changed.
          globalSetup: ['test/helpers/build-cli.ts'],
          exclude: [...configDefaults.exclude],
        },
      },
    ],
  },
});
