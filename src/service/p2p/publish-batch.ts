/**
 * A batch publish answered item by item: each item is checked on its own, so a malformed item or
 * one repeating an earlier copy fails alone with the status and code it would have answered
 * alone, and the others are published.
 */
import type { z } from 'zod';
import type { ApiError } from '../../contract/api-error.js';
import {
  type P2PPublishItem,
  type P2PPublishResult,
  p2pPublishBodySchema,
  p2pPublishItemSchema,
} from '../../contract/p2p.js';
import type { Account } from '../core/caller.js';
import { refuse } from '../core/refuse.js';
import { inputError } from '../http/input-validation.js';
import { listingJson } from './listing-record.js';
import type { P2P } from './p2p.js';
import type { ItemOutcome } from './publishing.js';

/** Publishes the valid items of a batch and answers one result per item, in request order. */
export async function publishBatch(
  p2p: P2P,
  account: Account,
  key: string,
  items: readonly unknown[],
): Promise<P2PPublishResult[]> {
  const refused = new Map<number, ApiError>();
  const kept: { index: number; item: P2PPublishItem }[] = [];
  const firstIndex = new Map<string, number>();
  for (const [index, sent] of items.entries()) {
    const parsed = p2pPublishItemSchema.safeParse(sent);
    if (!parsed.success) {
      refused.set(index, malformedItemError(items, index, parsed.error.issues));
      continue;
    }
    const item = parsed.data;
    const earlier = firstIndex.get(item.operational_asset_id);
    if (earlier !== undefined) {
      refused.set(
        index,
        refuse(
          'invalid_request',
          `body items.${index}.operational_asset_id: the copy is already item ${earlier} of this batch; send each copy once`,
        ),
      );
      continue;
    }
    firstIndex.set(item.operational_asset_id, index);
    kept.push({ index, item });
  }
  const outcomes =
    kept.length === 0
      ? []
      : await p2p.publish(
          account,
          key,
          kept.map((k) => k.item),
        );
  const results: P2PPublishResult[] = [];
  for (const [position, { index }] of kept.entries()) {
    const outcome = outcomes[position];
    if (!outcome) throw new Error('publishing answered fewer outcomes than items');
    results[index] = resultJson(outcome, index);
  }
  for (const [index, error] of refused) results[index] = refusedJson(error, index);
  return results;
}

/** The refusal a malformed item would have answered alone, its fields named by their place in the batch. */
function malformedItemError(
  items: readonly unknown[],
  index: number,
  issues: readonly z.core.$ZodIssue[],
): ApiError {
  const inBatch = issues.map((issue) => ({ ...issue, path: ['items', index, ...issue.path] }));
  return inputError('body', p2pPublishBodySchema, inBatch, { items });
}

function resultJson(outcome: ItemOutcome, index: number): P2PPublishResult {
  if (!outcome.ok) return refusedJson(outcome.error, index);
  return {
    index,
    ok: true,
    status: outcome.status,
    replayed: outcome.replayed,
    listing: listingJson(outcome.listing),
    error: null,
  };
}

function refusedJson(error: ApiError, index: number): P2PPublishResult {
  const body = { ...error.extra, code: error.code, detail: error.detail };
  return { index, ok: false, status: error.status, replayed: false, listing: null, error: body };
}
