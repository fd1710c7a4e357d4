/** The ledger through Accounts on a real (in-memory) DuckDB: rows that say what moved and why, balances that equal their sum, refusals that write nothing. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiError, isApiError } from '../../../src/contract/api-error.js';
import { Accounts } from '../../../src/service/accounts/accounts.js';
import { UnitOfWorkRunner } from '../../../src/service/core/unit-of-work.js';
import { Database } from '../../../src/shared/database.js';
import { projectPath } from '../../../src/shared/project-root.js';
import { createRandom } from '../../helpers/listing-factory.js';

let db: Database;
let units: UnitOfWorkRunner;
let accounts: Accounts;

beforeEach(async () => {
  db = await Database.open(':memory:', projectPath('sql', 'service'));
  units = new UnitOfWorkRunner(db, () => Date.parse('2026-01-01T00:00:00.000Z'));
  accounts = new Accounts(db, units);
  await accounts.load(db);
});
afterEach(async () => {
  await units.drain();
  await db.close();
});

/** An account with `settled` cents settled and `pending` cents inside the reversal window. */
async function open(settled: number, pending = 0) {
  const { account } = await accounts.createAccount({
    appIds: [730],
    balanceCents: settled + pending,
    settledCents: settled,
  });
  return account.id;
}

/** The account's rows, oldest first, amounts in cents. */
async function rowsOf(id: string) {
  const rows = await db.read<{ type: string; cents: number; after: number; order_id: string | null }>(
    `SELECT type, CAST(amount_usd * 100 AS BIGINT) AS cents, CAST(balance_after_usd * 100 AS BIGINT) AS after,
            order_id FROM ledger WHERE account_id = $id ORDER BY seq`,
    { id },
  );
  return rows.map((r) => ({
    type: r.type,
    cents: Number(r.cents),
    after: Number(r.after),
    orderId: r.order_id,
  }));
}

/** The balances stored in the accounts table, in cents. */
async function storedOf(id: string) {
  const [row] = await db.read<{ balance: number; settled: number }>(
    `SELECT CAST(balance_usd * 100 AS BIGINT) AS balance, CAST(settled_usd * 100 AS BIGINT) AS settled
     FROM accounts WHERE id = $id`,
    { id },
  );
  return { balance: Number(row?.balance), settled: Number(row?.settled) };
}

const debit = (accountId: string, amountCents: number, settledOnly = false) =>
  units.run((uow) =>
    accounts.ledger.debit(uow, {
      accountId,
      type: 'purchase',
      amountCents,
      orderId: `ord_${amountCents}`,
      description: `test debit of ${amountCents}`,
      settledOnly,
    }),
  );

async function refusalOf(work: Promise<unknown>): Promise<ApiError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isApiError(error)) throw new Error(`not a refusal: ${String(error)}`);
  return error;
}

describe('Ledger.debit', () => {
  it('writes one purchase row with its order id and spends pending funds first', async () => {
    const id = await open(1000, 400);
    const posted = await debit(id, 600);
    expect(posted).toMatchObject({ balanceAfterCents: 800, settledAfterCents: 800, settledDeltaCents: -200 });
    expect(await rowsOf(id)).toEqual([
      { type: 'deposit', cents: 1400, after: 1400, orderId: null },
      { type: 'purchase', cents: -600, after: 800, orderId: 'ord_600' },
    ]);
    expect(await storedOf(id)).toEqual({ balance: 800, settled: 800 });
    expect(accounts.account(id)).toMatchObject({ balanceCents: 800, settledCents: 800 });
  });

  it('spends only settled funds when asked to', async () => {
    const id = await open(1000, 400);
    await debit(id, 600, true);
    expect(await storedOf(id)).toEqual({ balance: 800, settled: 400 });
  });

  it('answers 402 insufficient_balance with the balances in USD and writes nothing', async () => {
    const id = await open(1000, 250);
    const refused = await refusalOf(debit(id, 1300));
    expect([refused.status, refused.toBody()]).toEqual([
      402,
      {
        code: 'insufficient_balance',
        detail: 'the balance is below the order total; fund the account on the website',
        balance_usd: 12.5,
        required_usd: 13,
        settled_usd: 10,
      },
    ]);
    expect(await rowsOf(id)).toHaveLength(1);
    expect(await storedOf(id)).toEqual({ balance: 1250, settled: 1000 });
  });

  it('answers 402 insufficient_settled_balance when only pending funds would cover it', async () => {
    const id = await open(300, 700);
    const refused = await refusalOf(debit(id, 500, true));
    expect(refused.toBody()).toMatchObject({
      code: 'insufficient_settled_balance',
      balance_usd: 10,
      required_usd: 5,
      settled_usd: 3,
    });
    expect(await storedOf(id)).toEqual({ balance: 1000, settled: 300 });
  });

  it('sees the earlier debits of its own unit of work, and a refusal rolls the whole unit back', async () => {
    const id = await open(1000);
    const both = units.run(async (uow) => {
      const debitOf = (cents: number) =>
        accounts.ledger.debit(uow, {
          accountId: id,
          type: 'purchase',
          amountCents: cents,
          orderId: null,
          description: 'one of two',
        });
      await debitOf(700);
      await debitOf(700);
    });
    expect((await refusalOf(both)).toBody()).toMatchObject({ balance_usd: 3, required_usd: 7 });
    expect(await rowsOf(id)).toHaveLength(1);
    expect(accounts.account(id)?.balanceCents).toBe(1000);
  });

  it('answers 404 not_found for an account that does not exist', async () => {
    const refused = await refusalOf(debit('acc_missing', 100));
    expect(refused.toBody()).toEqual({ code: 'not_found', detail: 'no account acc_missing' });
  });
});

describe('the ledger after random movements', () => {
  it('keeps every balance equal to the sum of its rows, settled funds within it, and the table in step', async () => {
    const random = createRandom(7);
    const ids = [await open(5000, 2000), await open(0, 0), await open(100, 900)];
    for (let step = 0; step < 40; step++) {
      const id = random.pick(ids);
      const cents = 1 + random.int(3000);
      const move = random.int(4);
      if (move === 0) await accounts.fund(id, cents, random.chance(0.5));
      else if (move === 3) await units.run((uow) => accounts.ledger.settle(uow, id, cents));
      else await debit(id, cents, move === 2).catch((error: unknown) => expect(isApiError(error)).toBe(true));
      const rows = await rowsOf(id);
      const account = accounts.account(id);
      expect(account?.balanceCents).toBe(rows.reduce((sum, row) => sum + row.cents, 0));
      expect(rows.at(-1)?.after ?? 0).toBe(account?.balanceCents);
      expect(account?.settledCents).toBeGreaterThanOrEqual(0);
      expect(account?.settledCents).toBeLessThanOrEqual(account?.balanceCents ?? 0);
      expect(await storedOf(id)).toEqual({ balance: account?.balanceCents, settled: account?.settledCents });
    }
  });
});
