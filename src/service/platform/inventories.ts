/**
 * Accounts' inventories as features use them: a full read with its proof, a copy as a unit of work
 * sees it, and the sandbox's grants, removals and visibility changes.
 */
import { refuse } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { InventoryProof, InventoryStates, InventoryVisibility } from './inventory-proof.js';
import type { GrantedItem, InventoryStore } from './inventory-store.js';
import type { OwnedCopy } from './offer-types.js';

export type { GrantedItem } from './inventory-store.js';

/** A full read of an inventory: the proof, and the copies at home when the proof is ready (else none). */
export interface InventoryRead {
  proof: InventoryProof;
  copies: OwnedCopy[];
}

/** What the inventories are built from. */
export interface InventoriesDeps {
  units: UnitOfWorkRunner;
  inventory: InventoryStore;
  states: InventoryStates;
}

/** Reads and changes accounts' inventories. */
export class Inventories {
  constructor(private readonly deps: InventoriesDeps) {}

  /**
   * A full read of an account's inventory, as the platform answers it now: blocked (private, trade
   * banned), pending (a fresh inventory's first seconds; the first read starts them) or ready with
   * every copy at home.
   */
  async read(steamId: string): Promise<InventoryRead> {
    const proof = await this.deps.units.run((uow) => this.deps.states.read(uow, steamId));
    const copies = proof.status === 'ready' ? await this.deps.inventory.owned(steamId) : [];
    return { proof, copies };
  }

  /** The proof of a full read made inside the caller's unit of work (the first read starts it). */
  proofIn(uow: UnitOfWork, steamId: string): Promise<InventoryProof> {
    return this.deps.states.read(uow, steamId);
  }

  /** A copy at home in an account's inventory as the unit of work sees it, or undefined. */
  copyIn(uow: UnitOfWork, steamId: string, assetId: string): Promise<OwnedCopy | undefined> {
    return this.deps.inventory.copyIn(uow, steamId, assetId);
  }

  /** The copies at home in an account's inventory, as committed (no proof involved). */
  owned(steamId: string): Promise<OwnedCopy[]> {
    return this.deps.inventory.owned(steamId);
  }

  /** False when the account is trade banned: its offers are refused (as the unit of work sees it). */
  async canTrade(uow: UnitOfWork, steamId: string): Promise<boolean> {
    return (await this.deps.states.visibility(uow, steamId)) !== 'trade_banned';
  }

  /** Sandbox: grants `count` new copies of an item; returns their asset ids. */
  grant(steamId: string, item: GrantedItem, count: number): Promise<string[]> {
    return this.deps.units.run((uow) => this.deps.inventory.grant(uow, steamId, item, count));
  }

  /** Sandbox: takes one copy away, as a trade elsewhere would; 404 not_found when it is not at home. */
  async remove(steamId: string, assetId: string): Promise<void> {
    await this.deps.units.run(async (uow) => {
      if (!(await this.deps.inventory.remove(uow, steamId, assetId)))
        throw refuse('not_found', `no asset ${assetId} in the inventory of ${steamId}`);
    });
  }

  /** Sandbox: how the platform shows the inventory; a change makes it fresh (its next read is pending). */
  setVisibility(uow: UnitOfWork, steamId: string, visibility: InventoryVisibility): Promise<void> {
    return this.deps.states.setVisibility(uow, steamId, visibility);
  }
}
