/**
 * The demo trader's setup, done through the sandbox operator endpoints as the website and the
 * platform would: the demo account gets Instant Sell and a platform account whose inventory is
 * public (the bots trade only with a public one), its trade URL is fetched, and a second account,
 * the demo buyer, is made with a trading key to buy what the demo account lists on P2P.
 */

import { sandboxOf } from '../sandbox/index.js';
import { hasPrivateInventory, newPlatformId, STEAM_ID_BASE } from '../service/index.js';

/** What the trader needs from the setup. */
export interface DemoSetup {
  /** The demo account's trade URL, where the Instant Sell bots send their offers. */
  tradeUrl: string;
  /** The demo buyer's account and trading key. */
  buyer: { accountId: string; apiKey: string };
}

/** Sets the demo account `accountId` up for P2P and Instant Sell and makes the demo buyer. */
export async function setUpDemoAccounts(
  baseUrl: string,
  accountId: string,
  signal?: AbortSignal,
): Promise<DemoSetup> {
  const sandbox = sandboxOf(baseUrl, signal);
  const account = (await sandbox('GET', `/accounts/${accountId}`)) as { steam_id: string | null };
  let steamId = account.steam_id;
  const change: Record<string, unknown> = { instant_sell: true };
  if (steamId === null || hasPrivateInventory(partnerOf(steamId))) {
    steamId = publicPlatformId();
    change.steam_id = steamId;
  }
  await sandbox('PATCH', `/accounts/${accountId}`, change);
  const { trade_url: tradeUrl } = (await sandbox('GET', `/trade-urls/${partnerOf(steamId)}`)) as {
    trade_url: string;
  };
  const buyer = (await sandbox('POST', '/accounts', {
    balance_usd: 1000,
    trading: true,
    label: 'demo buyer',
    key_label: 'demo buyer',
    steam_id: publicPlatformId(),
  })) as { account_id: string; api_key: string };
  return { tradeUrl, buyer: { accountId: buyer.account_id, apiKey: buyer.api_key } };
}

/** The 32-bit account number (a trade URL's `partner`) of a 17-digit platform id. */
function partnerOf(steamId: string): number {
  return Number(BigInt(steamId) - STEAM_ID_BASE);
}

/** A fresh platform id whose inventory the simulated platform shows publicly. */
function publicPlatformId(): string {
  for (;;) {
    const steamId = newPlatformId();
    if (!hasPrivateInventory(partnerOf(steamId))) return steamId;
  }
}
