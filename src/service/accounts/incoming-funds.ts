/**
 * Money on its way to an account that is not in its balance yet (an Instant Sell credit inside the
 * platform's trade protection): the features that owe it report it, and the balance shows it as
 * pending without it being spendable.
 */

/** What one feature owes an account, in cents. */
export type IncomingReader = (accountId: string) => Promise<number>;

/** The readers of money owed to accounts, summed per account. */
export class IncomingFunds {
  private readonly readers: IncomingReader[] = [];

  /** Adds a feature's reader; the balance counts what it reports from now on. */
  add(reader: IncomingReader): void {
    this.readers.push(reader);
  }

  /** What all features owe the account, in cents. */
  async of(accountId: string): Promise<number> {
    const owed = await Promise.all(this.readers.map((read) => read(accountId)));
    return owed.reduce((sum, cents) => sum + cents, 0);
  }
}
