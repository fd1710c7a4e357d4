/** Migration 011 on a real DuckDB file: keys that older versions consumed with an up-front refusal are free again. */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../../src/shared/database.js';
import { listMigrations } from '../../../src/shared/migrations.js';
import { projectPath } from '../../../src/shared/project-root.js';

const MIGRATION = '011_p2p_free_refused_keys.sql';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'p2p-keys-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe(MIGRATION, () => {
  it('deletes the refusals older versions recorded under a key and keeps every published item', async () => {
    const service = projectPath('sql', 'service');
    const before = join(dir, 'before');
    mkdirSync(before);
    for (const file of listMigrations(service).filter((f) => f < MIGRATION))
      copyFileSync(join(service, file), join(before, file));
    const path = join(dir, 'service.duckdb');
    const old = await Database.open(path, before);
    await old.run(
      `INSERT INTO p2p_publish_keys (account_id, idempotency_key, operational_asset_id, asset_revision, price_cents,
         listing_id, error_status, error_code, created_at)
       VALUES ('acc_1', 'key-1', '730_1', 'r', 100, NULL, 409, 'asset_revision_changed', TIMESTAMP '2026-11-01'),
              ('acc_1', 'key-1', '730_2', 'r', 100, 'p2p_a', NULL, NULL, TIMESTAMP '2026-11-01'),
              ('acc_1', 'key-2', '730_3', 'r', 100, NULL, 409, 'already_listed', TIMESTAMP '2026-11-01')`,
    );
    await old.close();
    const db = await Database.open(path, service);
    try {
      const rows = await db.all<{ op: string }>(
        'SELECT operational_asset_id AS op FROM p2p_publish_keys ORDER BY op',
      );
      expect(rows.map((r) => r.op)).toEqual(['730_2']);
    } finally {
      await db.close();
    }
  });
});
