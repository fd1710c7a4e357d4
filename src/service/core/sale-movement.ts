/** A `sale` row of the ledger, as the features that pay sellers post it (the ledger implements the posting). */
export interface SaleMovement {
  accountId: string;
  type: 'sale';
  /** The credit in cents. */
  amountCents: number;
  /** How much of the account's pending funds the row moves into its settled part, in cents. */
  settledDeltaCents: number;
  orderId: string;
  description: string;
}
