/** The unit-of-work runner: group commit, failures that stay alone, rollbacks that do not leak, effects in order. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnitOfWorkRunner } from '../../../src/service/core/unit-of-work.js';
import { Database } from '../../../src/shared/database.js';
import { holdWriter } from '../../helpers/hold-writer.js';

describe('UnitOfWorkRunner', () => {
  let db: Database;
  let units: UnitOfWorkRunner;
  beforeEach(async () => {
    db = await Database.open(':memory:');
    await db.run('CREATE TABLE t (k VARCHAR PRIMARY KEY)');
    units = new UnitOfWorkRunner(db, () => 0);
  });
  afterEach(() => db.close());

  const keys = async () => (await db.read<{ k: string }>('SELECT k FROM t ORDER BY k')).map((r) => r.k);
  const insert = (k: string) => units.run((uow) => uow.tx.runPrepared('INSERT INTO t VALUES ($k)', { k }));

  it('commits the units queued while a transaction runs together in the next one, sharing its batch', async () => {
    const writer = await holdWriter(units);
    const batches = new Set<object>();
    const queued = Promise.all(
      ['a', 'b', 'c'].map((k) =>
        units.run(async (uow) => {
          batches.add(uow.batch);
          await uow.tx.run('INSERT INTO t VALUES ($k)', { k });
        }),
      ),
    );
    writer.release();
    await queued;
    expect(await keys()).toEqual(['a', 'b', 'c']);
    expect(batches.size).toBe(1);
  });

  it('fails a unit that threw before writing alone, and commits the others', async () => {
    const results = await Promise.allSettled([
      insert('a'),
      units.run(async () => {
        throw new Error('refused');
      }),
      insert('b'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await keys()).toEqual(['a', 'b']);
  });

  it('rolls back a unit that failed after writing, and still commits the others of its transaction', async () => {
    const results = await Promise.allSettled([
      insert('a'),
      units.run(async (uow) => {
        await uow.tx.run("INSERT INTO t VALUES ('half')");
        throw new Error('failed half-way');
      }),
      insert('b'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('failed half-way');
    expect(await keys()).toEqual(['a', 'b']);
  });

  it('runs effects in order after the commit, and drops the effects of a failed unit', async () => {
    const seen: string[] = [];
    const effect = (name: string, fail = false) =>
      units.run(async (uow) => {
        await uow.tx.run('INSERT INTO t VALUES ($k)', { k: name });
        uow.afterCommit(() => seen.push(`${name}:${fail ? 'never' : 'committed'}`));
        if (fail) throw new Error(name);
      });
    await Promise.allSettled([effect('a'), effect('b', true), effect('c')]);
    expect(seen).toEqual(['a:committed', 'c:committed']);
  });

  it('runs the effects of a transaction before any unit of a later one starts', async () => {
    let mirror = 0;
    const bump = (k: string) =>
      units.run(async (uow) => {
        await uow.tx.run('INSERT INTO t VALUES ($k)', { k });
        uow.afterCommit(() => {
          mirror += 1;
        });
      });
    // The first unit runs alone; the next ones queue behind it and share the second transaction.
    const first = bump('k0');
    const next = ['k1', 'k2'].map(bump);
    const seen = units.run(async () => mirror);
    await Promise.all([first, ...next]);
    expect(await seen).toBe(1);
    expect(await units.run(async () => mirror)).toBe(3);
  });

  it('runs a unit queued just as a failed one is answered', async () => {
    await units
      .run(async (uow) => {
        await uow.tx.run("INSERT INTO t VALUES ('x')");
        throw new Error('late');
      })
      .catch(() => undefined);
    await insert('y');
    expect(await keys()).toEqual(['y']);
  });
});
