/** How each simulated platform user answers trade offers, stored per steam id, and when that answer falls due. */
import { refuse } from '../core/refuse.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { OfferEvent } from './offer-states.js';

/** A user's way of answering offers: accept or decline after a delay, or ignore them until they expire. */
export interface UserBehaviour {
  offers: 'accept' | 'decline' | 'ignore';
  /** Delay before accepting or declining, in seconds. */
  acceptAfterSeconds: number;
}

/** A change to a user's behaviour; missing fields keep their current value. */
export type BehaviourChange = Partial<UserBehaviour>;

/** How every user without stored settings behaves (end users of trade URLs included). */
export const DEFAULT_BEHAVIOUR: Readonly<UserBehaviour> = { offers: 'accept', acceptAfterSeconds: 30 };

/** The longest delay a user may be given: one day. */
export const MAX_ANSWER_DELAY_SECONDS = 86_400;

/** The next timed step of an active offer. */
export interface PlannedStep {
  event: Extract<OfferEvent, 'accept' | 'decline' | 'expire'>;
  at: number;
}

/** When and how the recipient answers an offer; an answer that would come at or after expiry is the expiry. */
export function planAnswer(behaviour: UserBehaviour, sentAt: number, expiresAt: number): PlannedStep {
  if (behaviour.offers === 'ignore') return { event: 'expire', at: expiresAt };
  const at = sentAt + Math.round(behaviour.acceptAfterSeconds * 1000);
  return at < expiresAt ? { event: behaviour.offers, at } : { event: 'expire', at: expiresAt };
}

/** Users' stored behaviours; reads and writes go through the caller's unit of work. */
export class UserBehaviours {
  /** The behaviour of a user as the unit of work sees it; the default when none is stored. */
  async of(uow: UnitOfWork, steamId: string): Promise<UserBehaviour> {
    const rows = await uow.tx.all<{ offers: UserBehaviour['offers']; accept_after_ms: bigint }>(
      'SELECT offers, accept_after_ms FROM platform_users WHERE steam_id = $steam_id',
      { steam_id: steamId },
    );
    const row = rows[0];
    if (!row) return { ...DEFAULT_BEHAVIOUR };
    return { offers: row.offers, acceptAfterSeconds: Number(row.accept_after_ms) / 1000 };
  }

  /** Stores a change to a user's behaviour and returns the whole new behaviour. */
  async set(uow: UnitOfWork, steamId: string, change: BehaviourChange): Promise<UserBehaviour> {
    const next = { ...(await this.of(uow, steamId)), ...definedOnly(change) };
    checkBehaviour(next);
    await uow.tx.run(
      `INSERT INTO platform_users (steam_id, offers, accept_after_ms, updated_at)
       VALUES ($steam_id, $offers, $after_ms, make_timestamp($now * 1000))
       ON CONFLICT (steam_id) DO UPDATE SET offers = excluded.offers,
         accept_after_ms = excluded.accept_after_ms, updated_at = excluded.updated_at`,
      {
        steam_id: steamId,
        offers: next.offers,
        after_ms: Math.round(next.acceptAfterSeconds * 1000),
        now: uow.now,
      },
    );
    return next;
  }
}

function definedOnly(change: BehaviourChange): BehaviourChange {
  return Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
}

function checkBehaviour(behaviour: UserBehaviour): void {
  if (!['accept', 'decline', 'ignore'].includes(behaviour.offers))
    throw refuse(
      'invalid_request',
      `offers must be accept, decline or ignore, not ${String(behaviour.offers)}`,
    );
  const seconds = behaviour.acceptAfterSeconds;
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_ANSWER_DELAY_SECONDS)
    throw refuse('invalid_request', `acceptAfterSeconds must be between 0 and ${MAX_ANSWER_DELAY_SECONDS}`);
}
