/**
 * `market models init <dir>`: the analyst's own models folder, started as a copy of the shipped
 * `sql/models`, so models are changed and added without editing the project's tree.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findSqlDir } from '../../shared/project-root.js';

/** What {@link initModelsFolder} did. */
export interface ModelsFolderInit {
  /** `copied`: the shipped models were copied; `kept`: the folder already held models and was left as is. */
  outcome: 'copied' | 'kept';
  /** The files copied (none when kept). */
  copied: string[];
  /** Kept only: its models whose text differs from the shipped ones (the analyst's changes). */
  changed: string[];
  /** Kept only: shipped models it has no file of (deleted, or shipped since the folder was made). */
  missing: string[];
}

/** A folder that holds files but no model: `init` refuses to mix the shipped models into it. */
export class ModelsFolderNotEmptyError extends Error {
  override readonly name = 'ModelsFolderNotEmptyError';
}

/**
 * Copies the shipped models (`.sql` files, and their README) into `dir`, creating it. A folder
 * that already holds `.sql` files is taken as a models folder made before and left untouched (an
 * analyst's edits are never overwritten): what differs from the shipped models is reported. A
 * folder holding other files only is refused with a {@link ModelsFolderNotEmptyError}.
 */
export async function initModelsFolder(
  dir: string,
  shipped: string = findSqlDir('models'),
): Promise<ModelsFolderInit> {
  const sources = (await readdir(shipped)).filter((n) => n.endsWith('.sql') || n === 'README.md').sort();
  const present = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  if (present.some((n) => n.endsWith('.sql'))) {
    const changed: string[] = [];
    const missing: string[] = [];
    for (const name of sources.filter((n) => n.endsWith('.sql'))) {
      if (!present.includes(name)) missing.push(name);
      else if ((await readFile(join(dir, name), 'utf8')) !== (await readFile(join(shipped, name), 'utf8')))
        changed.push(name);
    }
    return { outcome: 'kept', copied: [], changed, missing };
  }
  if (present.length > 0)
    throw new ModelsFolderNotEmptyError(
      `${dir} holds files but no model (.sql): give an empty or new folder, or one made by market models init`,
    );
  await mkdir(dir, { recursive: true });
  for (const name of sources) await copyFile(join(shipped, name), join(dir, name));
  return { outcome: 'copied', copied: sources, changed: [], missing: [] };
}
