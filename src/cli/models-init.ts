/** `market models init <dir>`: the analyst's own models folder, from the shipped models. */
import { resolve } from 'node:path';
import { initModelsFolder, ModelsFolderNotEmptyError } from '../warehouse/index.js';
import { CliError } from './cli-error.js';

/** Copies the shipped models into `dir`, or says how a folder already holding models differs from them. */
export async function modelsInit(dir: string): Promise<void> {
  const folder = resolve(dir);
  const done = await initModelsFolder(folder).catch((error: unknown) => {
    if (error instanceof ModelsFolderNotEmptyError) throw new CliError(error.message);
    throw error;
  });
  if (done.outcome === 'copied') {
    const models = done.copied.filter((n) => n.endsWith('.sql')).length;
    process.stdout.write(
      `copied ${models} models into ${folder}\nbuild them with: market models run --models ${dir} (or MARKET_MODELS=${dir})\n`,
    );
    return;
  }
  const lines = [`${folder} already holds models: left as is, nothing copied`];
  if (done.changed.length) lines.push(`changed from the shipped ones: ${done.changed.join(', ')}`);
  if (done.missing.length) lines.push(`shipped models it has no file of: ${done.missing.join(', ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
