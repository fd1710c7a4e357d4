/**
 * Child process of the crash test: resumes from the committed state `n` and writes batch i (with
 * state { n: i } and i events `i-0` … `i-(i-1)`) forever, until it is killed.
 */
import { Warehouse } from '../../../src/warehouse/index.js';
import { newEvent, T0 } from '../fixtures.js';

const path = process.argv[2];
if (!path) throw new Error('usage: crash-writer.ts <file>');
const warehouse = await Warehouse.open(path);
const state = await warehouse.readState('crash');
let i = state.n === undefined ? 0 : Number(state.n) + 1;
for (;;) {
  const events = Array.from({ length: i }, (_, k) => newEvent(`${i}-${k}`, `L${i}-${k}`, T0 + i));
  await warehouse.write([{ source: 'crash', events, state: { n: String(i) } }]);
  process.stdout.write(`committed ${i}\n`);
  i += 1;
}
