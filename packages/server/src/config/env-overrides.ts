/**
 * Environment variables that override the config file (containers and process managers
 * configure through the environment). Each one sets one key; the result is validated
 * with the file, so a bad value fails exactly like a bad key in the file, naming the
 * variable it came from. Empty variables are ignored.
 */
export interface EnvOverride {
  /** The environment variable. */
  readonly name: string;
  /** The config key it sets, as a JSON pointer. */
  readonly key: string;
  /** What the value looks like, for --help and the docs. */
  readonly format: string;
  readonly apply: (config: Record<string, unknown>, value: string) => void;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The object at `path` below `config`, created (or replaced, when not an object) as needed. */
function objectAt(config: Json, path: readonly string[]): Json {
  let node = config;
  for (const key of path) {
    const next = node[key];
    node = isObject(next) ? next : (node[key] = {});
  }
  return node;
}

const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** A whole number stays a number; anything else is left as text for the schema to reject by name. */
const integer = (value: string): number | string => (/^\s*\d+\s*$/.test(value) ? Number(value) : value);

/** A decimal number (0.01, 1e-3) stays a number; anything else is left as text for the schema to reject by name. */
const decimal = (value: string): number | string =>
  /^\s*(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?\s*$/i.test(value) ? Number(value) : value;

const OFF = /^(off|false|none)$/i;

/** true/on/yes/1 and false/off/no/0 are booleans; anything else is left as text for the schema to reject by name. */
const flag = (value: string): boolean | string =>
  /^\s*(true|on|yes|1)\s*$/i.test(value) ? true : /^\s*(false|off|no|0)\s*$/i.test(value) ? false : value;

/** true/false, a hop count, or a list of addresses, ranges and presets; anything else left for the schema to name. */
function trustProxyOf(value: string): boolean | number | string | string[] {
  const v = value.trim();
  if (/^true$/i.test(v)) return true;
  if (OFF.test(v)) return false;
  const hops = integer(v);
  return typeof hops === 'number' ? hops : list(v);
}

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { name: 'HOST', key: '/host', format: 'an address, e.g. 0.0.0.0', apply: (c, v) => void (c.host = v) },
  {
    name: 'PORT',
    key: '/port',
    format: 'a port number, 0 for any free port',
    apply: (c, v) => void (c.port = integer(v)),
  },
  {
    name: 'ROLLUP_ROUTER_WORKERS',
    key: '/workers',
    format: 'a number of server processes sharing the port, or auto for the CPUs this process may use',
    apply: (c, v) => void (c.workers = v.trim() === 'auto' ? 'auto' : integer(v)),
  },
  {
    name: 'LOG_LEVEL',
    key: '/logLevel',
    format: 'fatal|error|warn|info|debug|trace|silent',
    apply: (c, v) => void (c.logLevel = v),
  },
  {
    name: 'ROLLUP_ROUTER_LOG_FLUSH_MS',
    key: '/logFlushMs',
    format:
      'milliseconds, e.g. 100: lines are batched and written at least this often; 0 writes each line at once',
    apply: (c, v) => void (c.logFlushMs = integer(v)),
  },
  {
    name: 'ROLLUP_ROUTER_CALL_LOG_LEVEL',
    key: '/callLog/level',
    format: 'fatal|error|warn|info|debug|trace; below LOG_LEVEL (debug under info) no call line is written',
    apply: (c, v) => void (objectAt(c, ['callLog']).level = v.trim()),
  },
  {
    name: 'ROLLUP_ROUTER_CALL_LOG_SAMPLE_RATE',
    key: '/callLog/sampleRate',
    format:
      'a number above 0 and at most 1, e.g. 0.01: one successful call in 100 gets its line (failures all do)',
    apply: (c, v) => void (objectAt(c, ['callLog']).sampleRate = decimal(v)),
  },
  {
    name: 'ROLLUP_ROUTER_API_KEYS',
    key: '/apiKeys',
    format: 'comma-separated keys (8 characters or more)',
    apply: (c, v) => void (c.apiKeys = list(v)),
  },
  {
    name: 'ROLLUP_ROUTER_UPSTREAMS',
    key: '/statuses/upstreams',
    format: 'comma-separated http(s) URLs of Solana JSON-RPC nodes',
    apply: (c, v) => void (objectAt(c, ['statuses']).upstreams = list(v).map((url) => ({ url }))),
  },
  {
    name: 'ROLLUP_ROUTER_STORE_PATH',
    key: '/statuses/store',
    format: 'path of the SQLite file, or off for no store',
    // The path only: the file's other store keys (cacheMiB) stay.
    apply: (c, v) => {
      if (OFF.test(v)) objectAt(c, ['statuses']).store = false;
      else objectAt(c, ['statuses', 'store']).path = v;
    },
  },
  {
    name: 'ROLLUP_ROUTER_ROUTES_FILE',
    key: '/routes/file',
    format: 'path of a JSON or YAML routes file',
    apply: (c, v) => void (objectAt(c, ['routes']).file = v),
  },
  {
    name: 'ROLLUP_ROUTER_CHAIN_URL',
    key: '/routes/chain/url',
    format:
      'http(s) JSON-RPC URL of the cluster holding the MDP registry, e.g. https://api.devnet.solana.com',
    apply: (c, v) => void (objectAt(c, ['routes', 'chain']).url = v.trim()),
  },
  {
    name: 'ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES',
    key: '/routes/allowInsecure',
    format:
      'true to list http:// nodes (local ones, as a chain registry on loopback has), false for https:// only',
    apply: (c, v) => void (objectAt(c, ['routes']).allowInsecure = flag(v)),
  },
  {
    name: 'ROLLUP_ROUTER_CHAIN_ALLOW_PRIVATE_ADDRESSES',
    key: '/routes/chain/allowPrivateAddresses',
    format:
      'true to call chain registry nodes on loopback or private addresses (a local chain whose ERs are on 127.0.0.1), false to refuse them',
    apply: (c, v) => void (objectAt(c, ['routes', 'chain']).allowPrivateAddresses = flag(v)),
  },
  {
    name: 'ROLLUP_ROUTER_REDIS_URL',
    key: '/redis/url',
    format:
      'redis://[[user]:password@]host:port[/db] (rediss:// for TLS) of a Redis shared by every instance, or off',
    apply: (c, v) => {
      if (OFF.test(v)) delete c.redis;
      else objectAt(c, ['redis']).url = v;
    },
  },
  {
    name: 'ROLLUP_ROUTER_CORS_ORIGINS',
    key: '/cors',
    format: '*, off, or comma-separated origins (https://app.example)',
    apply: (c, v) => void (c.cors = v.trim() === '*' ? '*' : OFF.test(v) ? false : list(v)),
  },
  {
    name: 'ROLLUP_ROUTER_RATE_LIMIT',
    key: '/rateLimit',
    format: 'POINTS/SECONDS (e.g. 100/1 = 100 calls per second per client IP), or off',
    apply: (c, v) => {
      if (OFF.test(v)) {
        c.rateLimit = false;
        return;
      }
      const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(v);
      // Keep trustProxy from the file: the variable sets the budget, not the network layout.
      const previous = isObject(c.rateLimit) ? c.rateLimit : {};
      c.rateLimit = m ? { ...previous, points: Number(m[1]), durationSeconds: Number(m[2]) } : v;
    },
  },
  {
    name: 'ROLLUP_ROUTER_TRUST_PROXY',
    key: '/trustProxy',
    format:
      'false, true (every hop: only behind a proxy that overwrites X-Forwarded-For), a hop count, or comma-separated proxy addresses, CIDR ranges and presets (loopback, linklocal, uniquelocal)',
    apply: (c, v) => void (c.trustProxy = trustProxyOf(v)),
  },
  {
    name: 'ROLLUP_ROUTER_METRICS_TOKEN',
    key: '/metrics/token',
    format: 'a bearer token of 16 characters or more that GET /metrics requires',
    apply: (c, v) => void (objectAt(c, ['metrics']).token = v),
  },
  {
    name: 'ROLLUP_ROUTER_TRACING',
    key: '/tracing/enabled',
    format:
      'true to export OpenTelemetry traces (where to: tracing.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT), false for none',
    apply: (c, v) => void (objectAt(c, ['tracing']).enabled = flag(v)),
  },
  {
    name: 'ROLLUP_ROUTER_WS_PORT',
    key: '/websocket/port',
    format: "the WebSocket-only second listener's port (default PORT + 1), or off for none",
    apply: (c, v) => void (objectAt(c, ['websocket']).port = OFF.test(v) ? false : integer(v)),
  },
  {
    name: 'ROLLUP_ROUTER_MOUNT_PATH',
    key: '/endpoints/mountPath',
    format: 'a path, e.g. /rpc',
    apply: (c, v) => void (objectAt(c, ['endpoints']).mountPath = v),
  },
  {
    name: 'ROLLUP_ROUTER_API_VERSION',
    key: '/statuses/apiVersion',
    format: 'text for result.context.apiVersion when no upstream was asked',
    apply: (c, v) => void (objectAt(c, ['statuses']).apiVersion = v),
  },
];

/** Applies every set variable to `config` (mutated); returns the ones applied. */
export function applyEnvOverrides(config: Json, env: NodeJS.ProcessEnv): EnvOverride[] {
  const applied: EnvOverride[] = [];
  for (const override of ENV_OVERRIDES) {
    const value = env[override.name];
    if (value === undefined || value.trim() === '') continue;
    override.apply(config, value);
    applied.push(override);
  }
  return applied;
}
