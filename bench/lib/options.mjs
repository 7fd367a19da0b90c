// Command-line flags (after `npm run bench --`) and BENCH_* environment variables.
// Every row gets the same settings; --quick only makes rounds fewer and shorter.

export const USAGE = `npm run bench [-- options]

  --quick             the main cases only (every goal of issue 12, the WebSocket rows
                      of issue 10), 3 rounds of 3 s, no subscription figures:
                      "did this change make us faster" in under 5 minutes
  --rounds N          interleaved rounds per group (BENCH_ROUNDS; full 5, quick 3)
  --duration S        measured seconds per row and round (BENCH_DURATION; full 6, quick 3)
  --warmup S          warm-up per row when its server starts, not counted
                      (BENCH_WARMUP; full 2, quick 1)
  --round-warmup S    warm-up before each measured round, not counted: new connections
                      (BENCH_ROUND_WARMUP; full 1, quick 0.5)
  --connections N     concurrent connections (BENCH_CONNECTIONS, default 50)
  --pipelining N      requests in flight per connection (BENCH_PIPELINING, default 1)
  --only REGEX        only the rows whose id matches, with their baselines (BENCH_ONLY)
  --no-pin            do not pin the load generator and the targets to separate CPUs
  --no-peers          skip the real MagicBlock peers (their rows say absent)
  --quiet-wait S      before each round, wait up to S seconds for the machine to be under
                      15% busy (BENCH_QUIET_WAIT, default 0: do not wait, only note it)
  --no-subscriptions  skip the subscription figures (memory per idle signatureSubscribe,
                      upstream requests per poll round at 10,000 pending)
  --no-relay          skip the relay figures (memory per signatureSubscribe relayed to
                      validator A's websocket, upstream sockets at 10,000 of them)
  --no-guard          skip the guard figure (CPU µs per call of a guard that admits)
                      Each of these three: --only skips it unless REGEX matches its name;
                      --quick skips subscriptions and relay unless asked (--relay)
  --retry-contended N measure a round again, all the rows of its group, when one of
                      them noted CPU contention (another process or hypervisor steal
                      over 5% of a CPU), at most N times per round
                      (BENCH_RETRY_CONTENDED; default 0, with --baseline 3)
  --baseline          also write bench/results/baseline-<machine>.json
  --soak              1,000,000 mixed requests against the reference server; RSS read at
                      10, 40, 70 and 100% of them, growth > 10% from 40% to the end exits non-zero
  --soak-calls N      requests of the soak (default 1000000; RSS read at 10, 40, 70, 100%)
  --profile [REGEX]   run our server of the rows whose id matches (default prod.getRoutes)
                      under node --cpu-prof and print the top self-time frames
  --help

Modes, each with arguments of its own (bench/README.md):
  --dispatch [CHECKOUT...]                 our CPU µs per rpc.dispatch, in process
  --fanout [HOLDERS] [--kb N] [--notifications N]   the server's CPU per accountNotification
                                           of an N KB account held by HOLDERS clients (1000, 100 KB)
  --notify-delay [N] [--commitment C] [--poll]   our signatureNotification after validator A's
  --rss-unknown [--per-call 1,256] [--signatures N] [--idle S] [--snapshots DIR]`;

const NUMBERS = {
  rounds: 'BENCH_ROUNDS',
  duration: 'BENCH_DURATION',
  warmup: 'BENCH_WARMUP',
  'round-warmup': 'BENCH_ROUND_WARMUP',
  connections: 'BENCH_CONNECTIONS',
  pipelining: 'BENCH_PIPELINING',
  'quiet-wait': 'BENCH_QUIET_WAIT',
  'soak-calls': 'BENCH_SOAK_CALLS',
  'retry-contended': 'BENCH_RETRY_CONTENDED',
};
/** Figures measured beside the rows (not load rows): each on by a flag of its name. */
const FIGURES = ['subscriptions', 'relay', 'guard'];
const FLAGS = ['quick', 'pin', 'peers', ...FIGURES, 'baseline', 'soak', 'help'];
const MODE_DEFAULTS = {
  full: {
    rounds: 5,
    duration: 6,
    warmup: 2,
    'round-warmup': 1,
    subscriptions: true,
    relay: true,
    guard: true,
  },
  // The subscription and relay figures (memory, requests, sockets) are no speed figures and
  // cost ~40 s each; the guard's is a goal and costs ~10 s.
  quick: {
    rounds: 3,
    duration: 3,
    warmup: 1,
    'round-warmup': 0.5,
    subscriptions: false,
    relay: false,
    guard: true,
  },
};

function parseArgv(argv, o) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.replace(/^--/, '').split('=', 2);
    if (flag in NUMBERS) {
      o[flag] = Number(inline ?? argv[++i]);
      if (!Number.isFinite(o[flag]) || o[flag] < 0) throw new Error(`--${flag} needs a number`);
    } else if (flag === 'only') {
      o.only = new RegExp(inline ?? argv[++i]);
    } else if (flag === 'profile') {
      const value =
        inline ?? (argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : '^prod\\.getRoutes$');
      o.profile = new RegExp(value);
    } else if (FLAGS.includes(flag)) {
      o[flag] = true;
    } else if (flag.startsWith('no-') && FLAGS.includes(flag.slice(3))) {
      o[flag.slice(3)] = false;
    } else {
      throw new Error(`unknown option ${arg}\n\n${USAGE}`);
    }
  }
}

export function parseOptions(argv = process.argv.slice(2), env = process.env) {
  const o = {
    connections: 50,
    pipelining: 1,
    'quiet-wait': 0,
    'soak-calls': 1_000_000,
    only: env.BENCH_ONLY ? new RegExp(env.BENCH_ONLY) : undefined,
    quick: Boolean(env.BENCH_QUICK),
    pin: !env.BENCH_NO_PIN,
    peers: true,
    baseline: false,
    soak: false,
    profile: false,
    help: false,
  };
  for (const [key, name] of Object.entries(NUMBERS)) if (env[name]) o[key] = Number(env[name]);
  parseArgv(argv, o);
  for (const [key, value] of Object.entries(MODE_DEFAULTS[o.quick ? 'quick' : 'full'])) o[key] ??= value;
  // A baseline is only worth committing without contention: measure such rounds again.
  o['retry-contended'] ??= o.baseline ? 3 : 0;
  if (o.connections < 1 || o.duration <= 0 || o.rounds < 1)
    throw new Error('--connections, --duration and --rounds must be positive');
  const camel = (key) => key.replace(/-(\w)/g, (_, c) => c.toUpperCase());
  const out = Object.fromEntries(Object.entries(o).map(([key, value]) => [camel(key), value]));
  for (const f of FIGURES) out[f] = o[f] && (!o.only || o.only.test(f));
  return { ...out, rounds: Math.floor(o.rounds), retryContended: Math.floor(o['retry-contended']) };
}
