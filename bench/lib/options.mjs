// Command-line flags (after `npm run bench --`) and BENCH_* environment variables.
// Every target gets the same settings; only quick runs change them.

export const USAGE = `npm run bench [-- options]

  --duration S        measured seconds per case (BENCH_DURATION, default 10)
  --warmup S          seconds of warm-up per case, not counted (BENCH_WARMUP, default 2)
  --connections N     concurrent connections (BENCH_CONNECTIONS, default 50)
  --pipelining N      requests in flight per connection (BENCH_PIPELINING, default 1)
  --repeat N          run each case N times in a row and keep the best (BENCH_REPEAT,
                      default 1): other work on the machine only slows a run down
  --only REGEX        run only the cases whose id matches (BENCH_ONLY)
  --no-pin            do not pin the load generator and the targets to separate CPUs
  --no-peers          skip the real MagicBlock peers (rows marked absent)
  --no-start-peers    do not try to start the peers when they are not running
  --no-latency        skip the 1-connection latency pairs (upstream added latency)
  --quiet-wait S      before each case, wait up to S seconds for the machine to be
                      under 15% busy (BENCH_QUIET_WAIT, default 60); rows that
                      started busier say so
  --baseline          also write bench/results/baseline-<machine>.json
  --soak              1,000,000 mixed requests against the standalone server; RSS after
                      100k and after 1M requests, growth > 10% exits non-zero
  --soak-calls N      requests of the soak (default 1000000; checkpoint at 10%; much
                      smaller soaks flag the heap's start-up growth as a leak)
  --profile [REGEX]   run our server of row d (or of the rows whose id matches)
                      under node --cpu-prof and print the top self-time frames
  --help`;

const NUMBERS = {
  duration: 'BENCH_DURATION',
  warmup: 'BENCH_WARMUP',
  connections: 'BENCH_CONNECTIONS',
  pipelining: 'BENCH_PIPELINING',
  'quiet-wait': 'BENCH_QUIET_WAIT',
  repeat: 'BENCH_REPEAT',
  'soak-calls': 'BENCH_SOAK_CALLS',
};
const FLAGS = ['pin', 'peers', 'start-peers', 'latency', 'baseline', 'soak', 'help'];

export function parseOptions(argv = process.argv.slice(2), env = process.env) {
  const o = {
    duration: 10,
    warmup: 2,
    connections: 50,
    pipelining: 1,
    'quiet-wait': 60,
    repeat: 1,
    only: env.BENCH_ONLY ? new RegExp(env.BENCH_ONLY) : undefined,
    pin: env.BENCH_NO_PIN ? false : true,
    peers: true,
    'start-peers': true,
    latency: true,
    baseline: false,
    soak: false,
    'soak-calls': 1_000_000,
    profile: false,
    help: false,
  };
  for (const [key, name] of Object.entries(NUMBERS)) if (env[name]) o[key] = Number(env[name]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.replace(/^--/, '').split('=', 2);
    if (flag in NUMBERS) {
      o[flag] = Number(inline ?? argv[++i]);
      if (!Number.isFinite(o[flag]) || o[flag] < 0) throw new Error(`--${flag} needs a number`);
    } else if (flag === 'only') {
      o.only = new RegExp(inline ?? argv[++i]);
    } else if (flag === 'profile') {
      const value = inline ?? (argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : '^d$');
      o.profile = new RegExp(value);
    } else if (FLAGS.includes(flag)) {
      o[flag] = true;
    } else if (flag.startsWith('no-') && FLAGS.includes(flag.slice(3))) {
      o[flag.slice(3)] = false;
    } else {
      throw new Error(`unknown option ${arg}\n\n${USAGE}`);
    }
  }
  if (o.connections < 1 || o.duration <= 0) throw new Error('--connections and --duration must be positive');
  return {
    duration: o.duration,
    warmup: o.warmup,
    connections: o.connections,
    pipelining: o.pipelining,
    quietWait: o['quiet-wait'],
    repeat: Math.max(1, Math.floor(o.repeat)),
    only: o.only,
    pin: o.pin,
    peers: o.peers,
    startPeers: o['start-peers'],
    latency: o.latency,
    baseline: o.baseline,
    soak: o.soak,
    soakCalls: o['soak-calls'],
    profile: o.profile,
    help: o.help,
  };
}
