/** Packs many small JSON texts into large shared buffers and compacts the buffers removals have thinned out. */

/** One large buffer of the arena. */
export interface JsonSlab {
  readonly bytes: Buffer;
  /** The same bytes as a plain Uint8Array, for cheap sub-views when copying out. */
  readonly view: Uint8Array;
  /** Bytes written so far (the next text goes here). */
  used: number;
  /** Bytes of texts not yet freed. */
  live: number;
  /** Every cell written into this slab, freed or moved ones included until the slab is compacted. */
  cells: JsonCell[];
}

/** Where one text lives; the arena moves it (rewrites these fields) when it compacts a slab. */
export interface JsonCell {
  jsonSlab: JsonSlab;
  jsonStart: number;
  jsonEnd: number;
  jsonFreed: boolean;
}

/** Options of {@link JsonArena}. */
export interface JsonArenaOptions {
  /**
   * Size of each slab in bytes; a longer text gets a slab of its own.
   * @default 1048576
   */
  slabSize?: number;
  /**
   * A slab other than the one being filled is compacted when its live bytes fall below this share
   * of its written bytes.
   * @default 0.5
   */
  compactBelow?: number;
}

/** Memory figures of an arena. */
export interface JsonArenaStats {
  slabs: number;
  /** Bytes of all slabs. */
  bytes: number;
  /** Bytes of texts still in use. */
  liveBytes: number;
}

/** A cell that holds nothing yet; the starting value of {@link JsonCell.jsonSlab}. */
export const EMPTY_SLAB: JsonSlab = slabOf(Buffer.alloc(0));

/**
 * Stores UTF-8 texts back to back in large buffers. Small `Buffer.from` copies share Node's 8 KB
 * pool, where one surviving listing pins a whole pool page: under steady churn that costs several
 * times the live bytes. Here freed space is reclaimed by moving the survivors of a thinned-out
 * slab into the current one. A freed cell keeps pointing at its old bytes, which stay valid.
 */
export class JsonArena {
  readonly #slabSize: number;
  readonly #compactBelow: number;
  readonly #slabs = new Set<JsonSlab>();
  #current: JsonSlab;

  constructor(options: JsonArenaOptions = {}) {
    this.#slabSize = options.slabSize ?? 1 << 20;
    this.#compactBelow = options.compactBelow ?? 0.5;
    this.#current = this.#newSlab(this.#slabSize);
  }

  /** Writes `text` as UTF-8 and points `cell` at it. */
  store(cell: JsonCell, text: string): void {
    const length = Buffer.byteLength(text, 'utf8');
    const slab = this.#room(length);
    slab.bytes.write(text, slab.used, 'utf8');
    this.#place(cell, slab, length);
  }

  /** Releases the text of `cell`. Its bytes stay readable through the cell; freeing twice is a no-op. */
  free(cell: JsonCell): void {
    if (cell.jsonFreed) return;
    cell.jsonFreed = true;
    const slab = cell.jsonSlab;
    slab.live -= cell.jsonEnd - cell.jsonStart;
    if (slab !== this.#current && this.#slabs.has(slab) && slab.live < slab.used * this.#compactBelow) {
      this.#compact(slab);
    }
  }

  /** Current memory figures. */
  stats(): JsonArenaStats {
    let bytes = 0;
    let liveBytes = 0;
    for (const slab of this.#slabs) {
      bytes += slab.bytes.length;
      liveBytes += slab.live;
    }
    return { slabs: this.#slabs.size, bytes, liveBytes };
  }

  /** Moves the live texts of `slab` into the current slab and forgets `slab`. */
  #compact(slab: JsonSlab): void {
    this.#slabs.delete(slab);
    for (const cell of slab.cells) {
      if (cell.jsonFreed || cell.jsonSlab !== slab) continue;
      const length = cell.jsonEnd - cell.jsonStart;
      const target = this.#room(length);
      slab.bytes.copy(target.bytes, target.used, cell.jsonStart, cell.jsonEnd);
      this.#place(cell, target, length);
    }
    slab.cells = [];
    slab.live = 0;
  }

  /** Records that `length` bytes were just written at `slab.used` for `cell`. */
  #place(cell: JsonCell, slab: JsonSlab, length: number): void {
    cell.jsonSlab = slab;
    cell.jsonStart = slab.used;
    cell.jsonEnd = slab.used + length;
    cell.jsonFreed = false;
    slab.used += length;
    slab.live += length;
    slab.cells.push(cell);
  }

  /** A slab with `length` free bytes: the current one, or a fresh one that becomes current. */
  #room(length: number): JsonSlab {
    const current = this.#current;
    if (current.used + length <= current.bytes.length) return current;
    if (length > this.#slabSize) return this.#newSlab(length);
    this.#current = this.#newSlab(this.#slabSize);
    if (current.live < current.used * this.#compactBelow) this.#compact(current);
    return this.#current;
  }

  #newSlab(size: number): JsonSlab {
    const slab = slabOf(Buffer.allocUnsafeSlow(size));
    this.#slabs.add(slab);
    return slab;
  }
}

function slabOf(bytes: Buffer): JsonSlab {
  return {
    bytes,
    view: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
    used: 0,
    live: 0,
    cells: [],
  };
}
