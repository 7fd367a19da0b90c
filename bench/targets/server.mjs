// Ours, the reference server itself: @rollup-router/server's loadConfig + startServer,
// the listener `rollup-router` runs (security headers, request tracker, /metrics,
// /ready), configured from a JSON file like an operator would.
//   --settings production - per-call info logs to a file, metrics on, default headers;
//   --settings lean       - logs silent, metrics off (headers stay: they are not optional);
//   --settings sampled    - production with callLog.sampleRate 0.01: 1 successful call in 100
//                           gets its line, every failure does (an option, not the default).
//   --statuses memory     - memory cache + SQLite store + upstream (the defaults), primed by the runner;
//              sqlite     - no memory cache, store only;
//              upstream   - no memory cache, no store: every call goes upstream;
//              soak       - a 1000-entry cache, so later growth is a leak.
//   --upstream-ws URL     - the upstream's websocket, where signatureSubscribe is relayed (else port + 1;
//                           off: polled, wsUrl false);
//   --delegation URL      - the delegation router, with this base chain (validator A).
// The log file's size and /metrics are what the runner reads to prove the settings were on.
import { join } from 'node:path';
import { serveReferenceServer } from './lib/reference-server.mjs';
import { absent, targetArgs } from './lib/serve.mjs';

const {
  settings = 'production',
  statuses = 'memory',
  upstream,
  delegation,
  'upstream-ws': wsUrl,
} = targetArgs();
const SETTINGS = {
  production: { logLevel: 'info', metrics: { enabled: true } },
  lean: { logLevel: 'silent', metrics: { enabled: false } },
  sampled: { logLevel: 'info', metrics: { enabled: true }, callLog: { sampleRate: 0.01 } },
}[settings];
const CHAIN = {
  memory: { memory: {}, store: true },
  sqlite: { memory: { maxEntries: 0 }, store: true },
  upstream: { memory: { maxEntries: 0 }, store: false },
  soak: { memory: { maxEntries: 1000 }, store: true },
}[statuses];
if (!SETTINGS || !CHAIN) absent(`unknown --settings ${settings} or --statuses ${statuses}`);

await serveReferenceServer(
  (dir) => ({
    ...SETTINGS,
    statuses: {
      memory: CHAIN.memory,
      store: CHAIN.store && { path: join(dir, 'statuses.sqlite') },
      upstreams: upstream ? [{ url: upstream, wsUrl: wsUrl === 'off' ? false : wsUrl }] : [],
    },
    ...(delegation && { delegation: { baseChain: { url: delegation } } }),
  }),
  {
    name: `reference server, ${settings} settings, statuses ${statuses}`,
    notes: [`${settings} settings`, `statuses: ${statuses}${upstream ? ` via ${upstream}` : ''}`],
    ...(SETTINGS.logLevel === 'silent' ? { logFile: undefined } : {}),
    metricsPath: SETTINGS.metrics.enabled ? '/metrics' : undefined,
  },
);
