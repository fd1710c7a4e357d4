/**
 * Child process of the lake's kill tests: opens the warehouse at argv[2] and moves every row landed
 * before argv[3] (ISO 8601) to its lake; `MARKET_LAKE_CRASH_AT` makes it kill itself at a step.
 */
import { Warehouse } from '../../../src/warehouse/index.js';

const [path, before] = process.argv.slice(2);
if (!path || !before) throw new Error('usage: lake-move.ts <file> <ISO instant>');
const warehouse = await Warehouse.open(path);
const summary = await warehouse.moveToLake(Date.parse(before));
await warehouse.close();
process.stdout.write(`moved ${summary.moveId}\n`);
