// Run as `node --import tsx store-memory-probe.ts DIR '{"cacheMiB": 8}'`: a signature-statuses
// plugin with a store in DIR (store options from the JSON, `{}` for the defaults) takes in
// 200,000 finalized statuses, about 22 MB of SQLite file, in pages of 5,000, as a router does
// over a few days; prints the growth of the malloc heap ([heap] in /proc/self/smaps), where
// SQLite keeps its page cache. Apart from mocha, so no earlier test's freed memory is reused.
import { join } from 'node:path';
import { createLogger } from '@rollup-router/core';
import { signatureStatusesPlugin } from '../src/index.js';
import { randomSignatures } from '@rollup-router/test-support/solana';
import { mallocHeapBytes } from '@rollup-router/test-support/malloc-heap';

const [dir, options] = [process.argv[2]!, JSON.parse(process.argv[3]!) as Record<string, unknown>];
const plugin = signatureStatusesPlugin({
  memory: { maxEntries: 0 },
  store: { path: join(dir, 's.db'), ...options },
});
await plugin.start!({ log: createLogger({ level: 'silent' }) });
const store = plugin.store!;
const before = mallocHeapBytes()!;
for (let page = 0; page < 40; page++)
  store.putFinalized(randomSignatures(5_000).map((signature) => ({ signature, slot: page, err: null })));
const after = mallocHeapBytes()!;
await plugin.stop!();
console.log(JSON.stringify({ grewBy: after - before }));
