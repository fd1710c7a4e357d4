/** Child process of the lock test: opens the warehouse given as argument, reports, and exits. */
import { isWarehouseLockedError, Warehouse } from '../../../src/warehouse/index.js';

const path = process.argv[2];
if (!path) throw new Error('usage: open-warehouse.ts <file>');
try {
  const warehouse = await Warehouse.open(path);
  process.stdout.write('opened\n');
  await warehouse.close();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(isWarehouseLockedError(error) ? 3 : 1);
}
