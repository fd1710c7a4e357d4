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

/** Files that take far longer than any other: they start first, so none is left running alone at the end. */
const LONGEST = [
  'test/warehouse/lake/ray-data.int.test.ts',
  'test/collector/no-loss.int.test.ts',
  'test/cli/slow-clients.int.test.ts',
];

/** Vitest's order (the last run's durations, else file size), except that the longest files go first. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const longest = (spec: TestSpecification) => LONGEST.some((path) => spec.moduleId.endsWith(`/${path}`));
    return [...sorted.filter(longest), ...sorted.filter((spec) => !longest(spec))];
  }
}

export default defineConfig({
  root: ROOT,
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Most integration time is spent waiting on sockets and child processes, so one worker per core
    // (vitest's default leaves one core idle) roughly halves the wall time on a 2-core machine.
    maxWorkers: '100%',
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
