/**
 * `npm run bench [name…]`: runs the benchmarks (all, or those named) one after the other. Each
 * prints its results as ratios against a baseline measured in the same run.
 */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  listings: async () => (await import('./listings.bench.js')).run(),
  stream: async () => (await import('./stream.bench.js')).run(),
  snapshot: async () => (await import('./snapshot.bench.js')).run(),
  ingest: async () => (await import('./ingest.bench.js')).run(),
  fresh: async () => (await import('./fresh.bench.js')).run(),
  landing: async () => (await import('./landing.bench.js')).run(),
  models: async () => (await import('./models.bench.js')).run(),
  orders: async () => (await import('./orders.bench.js')).run(),
  report: async () => (await import('./report.bench.js')).run(),
  webhooks: async () => (await import('./webhooks.bench.js')).run(),
  rows: async () => (await import('./rows.bench.js')).run(),
  growth: async () => (await import('./growth.bench.js')).run(),
  lake: async () => (await import('./lake.bench.js')).run(),
  history: async () => (await import('./history.bench.js')).run(),
  soak: async () => (await import('./soak.bench.js')).run(),
};

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : Object.keys(BENCHMARKS)) {
  const bench = BENCHMARKS[name];
  if (!bench) {
    process.stderr.write(`unknown benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(', ')}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n== ${name} ==\n`);
  await bench();
}
