/**
 * `market lake move`: moves every row landed before an instant out of the warehouse file into its
 * lake, through the collector running on the file, or on the file opened here when none runs.
 */
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';
import { parseFlags } from './flags.js';
import { openWarehouse } from './open-warehouse.js';
import { lakeMoveFlags } from './options.js';
import { printRows, rowsOf } from './sql-output.js';

/** Moves the rows and prints the files and rows each relation moved. */
export async function lakeMove(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(lakeMoveFlags, flags);
  if (config.lakeDir && (await ControlClient.find(config.warehouse)))
    throw new CliError(
      `a collector is running on ${config.warehouse} and moves into its own lake (its --lake); --lake applies only when none runs`,
    );
  const summary = await (await openWarehouse(config)).moveToLake({ before: config.before });
  for (const [relation, months] of Object.entries(summary.merged ?? {}))
    process.stdout.write(`merged the days of ${relation} into one file a month: ${months.join(', ')}\n`);
  if (summary.moveId === null) {
    process.stdout.write(`no row landed before ${summary.before} is left in the warehouse file\n`);
    return;
  }
  const rows = Object.entries(summary.relations)
    .filter(([, moved]) => moved.files > 0)
    .map(([relation, moved]) => ({ relation, files: moved.files, rows: moved.rows }));
  await printRows(rowsOf(rows), 'table', process.stdout);
  const total = rows.reduce((sum, r) => sum + r.rows, 0);
  process.stdout.write(`moved ${total} rows landed before ${summary.before} (move ${summary.moveId})\n`);
}
