import { describe, expect, it } from 'vitest';
import { SortedList } from '../../../../src/service/market/listing-index/sorted-list.js';
import { createRandom } from '../../../helpers/listing-factory.js';

interface Item {
  key: number;
  tag: number;
}

const byKey = (a: Item, b: Item) => a.key - b.key;

/** Where a value would go in a reference array sorted by key, after its equals. */
function insertReference(reference: Item[], item: Item): void {
  let i = reference.length;
  while (i > 0 && (reference[i - 1] as Item).key > item.key) i--;
  reference.splice(i, 0, item);
}

describe('SortedList', () => {
  it.each([4, 8, 512])(
    'matches a sorted reference array under random operations (chunk size %i)',
    (chunkSize) => {
      const random = createRandom(chunkSize);
      const list = new SortedList<Item>(byKey, { chunkSize });
      const reference: Item[] = [];
      let tag = 0;
      for (let step = 0; step < 4000; step++) {
        const roll = random.next();
        if (roll < 0.55 || reference.length === 0) {
          const item = { key: random.int(300), tag: tag++ };
          list.insert(item);
          insertReference(reference, item);
        } else if (roll < 0.9) {
          const victim = reference[random.int(reference.length)] as Item;
          expect(list.delete(victim)).toBe(true);
          reference.splice(reference.indexOf(victim), 1);
        } else {
          const key = random.int(320) - 10;
          const start = reference.findIndex((v) => v.key > key);
          const expected = start < 0 ? [] : reference.slice(start);
          expect([...list.valuesAfter({ key, tag: -1 })]).toEqual(expected);
          expect(list.has({ key, tag: -1 })).toBe(reference.some((v) => v.key === key));
        }
        expect(list.size).toBe(reference.length);
        if (step % 97 === 0) expect([...list]).toEqual(reference);
      }
      expect([...list]).toEqual(reference);
    },
  );

  it('keeps insertion order among equal values and deletes the very object asked for', () => {
    const list = new SortedList<Item>(byKey, { chunkSize: 4 });
    const items = Array.from({ length: 20 }, (_, tag) => ({ key: tag % 2, tag }));
    for (const item of items) list.insert(item);
    expect([...list].map((v) => v.tag)).toEqual([
      0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
    ]);
    expect(list.delete(items[14] as Item)).toBe(true);
    expect([...list].map((v) => v.tag)).not.toContain(14);
    expect(list.delete({ key: 0, tag: 99 })).toBe(true);
    expect([...list].filter((v) => v.key === 0)).toHaveLength(8);
    expect(list.delete({ key: 5, tag: 0 })).toBe(false);
  });

  it('starts valuesFrom and scanFrom at the first value a monotone predicate accepts', () => {
    const list = SortedList.from([5, 1, 9, 3, 7, 3], (a, b) => a - b, { chunkSize: 4 });
    expect([...list]).toEqual([1, 3, 3, 5, 7, 9]);
    expect([...list.valuesFrom((v) => v >= 3)]).toEqual([3, 3, 5, 7, 9]);
    expect([...list.valuesFrom((v) => v > 9)]).toEqual([]);
    const seen: number[] = [];
    list.scanFrom(
      (v) => v >= 4,
      (v) => {
        seen.push(v);
        return seen.length < 2;
      },
    );
    expect(seen).toEqual([5, 7]);
    expect(list.at(0)).toBe(1);
    expect(list.at(5)).toBe(9);
    expect(list.at(6)).toBeUndefined();
  });

  it('builds from unsorted values the same list as inserting them', () => {
    const random = createRandom(7);
    const values = Array.from({ length: 5000 }, () => random.int(1000));
    const built = SortedList.from(values, (a, b) => a - b, { chunkSize: 16 });
    const inserted = new SortedList<number>((a, b) => a - b, { chunkSize: 16 });
    for (const v of values) inserted.insert(v);
    expect([...built]).toEqual([...inserted]);
    expect([...built]).toEqual([...values].sort((a, b) => a - b));
    for (const v of values.slice(0, 2500)) expect(built.delete(v)).toBe(true);
    expect([...built]).toEqual(values.slice(2500).sort((a, b) => a - b));
  });

  it('keeps each tag beside its value through inserts, deletes, splits and merges', () => {
    const random = createRandom(11);
    const tagOf = (item: Item) => item.tag % 7;
    const list = new SortedList<Item>(byKey, { chunkSize: 8, tagOf });
    const reference: Item[] = [];
    for (let step = 0; step < 3000; step++) {
      if (random.chance(0.6) || reference.length === 0) {
        const item = { key: random.int(200), tag: step };
        list.insert(item);
        insertReference(reference, item);
      } else {
        const victim = reference.splice(random.int(reference.length), 1)[0] as Item;
        list.delete(victim);
      }
    }
    const key = 100;
    const seen: [Item, number][] = [];
    list.scanChunks(
      (v) => v.key > key,
      (values, tags, from) => {
        for (let i = from; i < values.length; i++) seen.push([values[i] as Item, tags[i] as number]);
        return true;
      },
    );
    expect(seen.map(([v]) => v)).toEqual(reference.filter((v) => v.key > key));
    expect(seen.every(([v, tag]) => tag === tagOf(v))).toBe(true);
  });

  it('throws when changed during iteration', () => {
    const list = SortedList.from([1, 2, 3], (a, b) => a - b);
    expect(() => {
      for (const v of list) list.insert(v + 10);
    }).toThrow(/changed during iteration/);
  });
});
