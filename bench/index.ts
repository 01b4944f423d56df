// Benchmarks: `npm run bench` runs them all; `npm run bench -- <name>` one of them.
import { benchRestOrders } from './rest-orders.ts';

const BENCHES: Record<string, () => Promise<void>> = {
  'rest-orders': benchRestOrders,
};

const only = process.argv[2];
for (const [name, run] of Object.entries(BENCHES)) {
  if (only !== undefined && only !== name) continue;
  console.log(`\n## ${name}`);
  await run();
}
