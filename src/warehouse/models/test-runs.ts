/**
 * When model tests run. A test that reads only models built as tables runs whenever asked: those
 * tables change together, in one build's transaction. A test of a table that also reads data moving
 * on after the build (a landing table, or a view over one) would compare the model with rows that
 * arrived later, so it runs inside the build's transaction instead, and its outcome is recorded with
 * the build (`model_build_tests`) and reported by later test runs. A `typing_errors` test reads
 * landing data too, but for a share of it: it runs when asked, and costs a refresh nothing.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { type Model, readsRelation } from './model.js';
import { compileTests, type ModelTest, type ModelTestResult, runTest } from './model-tests.js';

/**
 * Runs the tests of `models` that run with a build, inside the open build transaction of
 * `connection`, and records their outcomes in place of the previous build's. `built` are the
 * models this build wrote, `watermark` the newest load it read.
 */
export async function recordBuildTests(
  connection: DuckDBConnection,
  built: readonly Model[],
  runId: string,
  watermark: string,
): Promise<void> {
  const relations = await relationsOf(connection);
  for (const model of built) {
    if (model.materialized === 'view') continue;
    await connection.run('DELETE FROM model_build_tests WHERE model = $model', { model: model.name });
    // A test line that cannot be read fails `market models test`, not the build.
    const tests = compiledOrNone(model).filter((t) => runsWithBuild(model, t, relations));
    for (const test of tests) {
      const result = await runTest(connection, test);
      await connection.run(
        `INSERT INTO model_build_tests
         VALUES ($model, $test, $run, CAST($watermark AS TIMESTAMP), $failures, $sample, $error)`,
        {
          model: model.name,
          test: test.name,
          run: runId,
          watermark,
          failures: result.failures,
          sample: JSON.stringify(result.sample),
          error: result.error ?? null,
        },
      );
    }
  }
}

/**
 * Runs every test of `models` on `connection` and returns the outcomes, passing and failing: a
 * test that runs with a build reports the outcome recorded by the model's last build.
 */
export async function runModelTests(
  connection: DuckDBConnection,
  models: readonly Model[],
): Promise<ModelTestResult[]> {
  const relations = await relationsOf(connection);
  const results: ModelTestResult[] = [];
  for (const model of models) {
    const tests = compileTests(model);
    const recorded = tests.some((t) => runsWithBuild(model, t, relations))
      ? await recordedOutcomes(connection, model.name)
      : new Map<string, ModelTestResult>();
    for (const test of tests) {
      if (!runsWithBuild(model, test, relations)) results.push(await runTest(connection, test));
      else {
        const result = recorded.get(test.name) ?? notBuiltYet(test);
        results.push(test.warn ? { ...result, warn: true } : result);
      }
    }
  }
  return results;
}

/** The relations of the warehouse, and which of them are models built as tables. */
interface Relations {
  all: string[];
  builtTables: Set<string>;
}

async function relationsOf(connection: DuckDBConnection): Promise<Relations> {
  // A model whose old days moved is a view over its `__hot` table and the lake's files: a move
  // changes no row of it, so it is as built as a table (else every test reading it would run with
  // every build, over the whole history).
  const reader = await connection.runAndReadAll(
    `SELECT t.table_name,
       s.model IS NOT NULL AND (t.table_type = 'BASE TABLE' OR h.table_name IS NOT NULL) AS built_table
     FROM information_schema.tables AS t
     LEFT JOIN model_state AS s ON s.model = t.table_name
     LEFT JOIN information_schema.tables AS h ON h.table_schema = 'main'
       AND h.table_name = t.table_name || '__hot' AND h.table_type = 'BASE TABLE'
     WHERE t.table_schema = 'main'`,
  );
  const rows = reader.getRowObjectsJS() as { table_name: string; built_table: boolean }[];
  return {
    all: rows.map((r) => r.table_name),
    builtTables: new Set(rows.filter((r) => r.built_table).map((r) => r.table_name)),
  };
}

/** Whether `test` of `model` reads data that moves on after the model's build. */
function runsWithBuild(model: Model, test: ModelTest, relations: Relations): boolean {
  if (model.materialized === 'view' || test.onDemand) return false;
  return relations.all.some(
    (name) => name !== model.name && !relations.builtTables.has(name) && readsRelation(test.sql, name),
  );
}

function compiledOrNone(model: Model): ModelTest[] {
  try {
    return compileTests(model);
  } catch {
    return [];
  }
}

async function recordedOutcomes(
  connection: DuckDBConnection,
  model: string,
): Promise<Map<string, ModelTestResult>> {
  const reader = await connection.runAndReadAll(
    `SELECT test, failures, sample, error, CAST(watermark AS VARCHAR) AS watermark
     FROM model_build_tests WHERE model = $model`,
    { model },
  );
  const rows = reader.getRowObjectsJS() as {
    test: string;
    failures: bigint;
    sample: string;
    error: string | null;
    watermark: string;
  }[];
  return new Map(
    rows.map((r) => [
      r.test,
      {
        model,
        name: r.test,
        failures: Number(r.failures),
        sample: JSON.parse(r.sample) as Record<string, unknown>[],
        ...(r.error === null ? {} : { error: r.error }),
        builtFrom: r.watermark,
      },
    ]),
  );
}

function notBuiltYet(test: ModelTest): ModelTestResult {
  return {
    model: test.model,
    name: test.name,
    failures: 1,
    sample: [],
    error: `this test compares ${test.model} with the data it was built from, so it runs with each build: run \`market models run\` first`,
  };
}
