// Command-line flags (after `npm run bench --`). Every row gets the same settings; --quick
// only makes rounds fewer and shorter.

export const USAGE = `npm run bench [-- options]

  --quick             the main cases only (every goal), 3 rounds of 3 s, no subscription or
                      relay figures: "did this change make us faster" in under 5 minutes
  --rounds N          interleaved rounds per group (full 5, quick 3)
  --duration S        measured seconds per row and round (full 6, quick 3)
  --warmup S          warm-up per row when its server starts, not counted (full 2, quick 1)
  --round-warmup S    warm-up before each measured round, not counted (full 1, quick 0.5)
  --connections N     concurrent connections (default 50)
  --only REGEX        only the rows whose id matches, with their baselines
  --no-pin            do not pin the load generator and the targets to separate CPUs
  --no-peers          skip the real MagicBlock peers (their rows say absent)
  --no-subscriptions, --no-relay, --no-guard
                      skip that figure; --only skips each unless REGEX matches its name,
                      --quick skips subscriptions and relay unless asked (--relay)
  --retry-contended N measure a round again, all the rows of its group, when one of them
                      noted CPU contention, at most N times per round (default 0, with --baseline 3)
  --baseline          also write bench/results/baseline-<machine>.json
  --soak              1,000,000 mixed requests against the reference server; RSS growth
                      over 10% from 40% of them to the end exits non-zero
  --soak-calls N      requests of the soak (default 1000000)
  --profile [REGEX]   run our server of the rows whose id matches (default prod.getRoutes)
                      under node --cpu-prof and print the top self-time frames
  --help

Modes, each with arguments of its own (bench/README.md):
  --dispatch [CHECKOUT...]
  --fanout [HOLDERS] [--kb N] [--notifications N]
  --notify-delay [N] [--commitment C] [--poll]
  --rss-unknown [--per-call 1,256] [--signatures N] [--idle S]`;

const NUMBERS = [
  'rounds',
  'duration',
  'warmup',
  'round-warmup',
  'connections',
  'soak-calls',
  'retry-contended',
];
/** Figures measured beside the rows (not load rows): each on by a flag of its name. */
const FIGURES = ['subscriptions', 'relay', 'guard'];
const FLAGS = ['quick', 'pin', 'peers', ...FIGURES, 'baseline', 'soak', 'help'];
// The subscription and relay figures (memory, requests, sockets) are no speed figures and cost
// ~40 s each: quick mode leaves them out; the guard's is a goal and costs ~10 s.
const DEFAULTS = {
  full: { rounds: 5, duration: 6, warmup: 2, 'round-warmup': 1, subscriptions: true, relay: true },
  quick: { rounds: 3, duration: 3, warmup: 1, 'round-warmup': 0.5, subscriptions: false, relay: false },
};

export function parseOptions(argv = process.argv.slice(2)) {
  const o = { connections: 50, 'soak-calls': 1_000_000, pin: true, peers: true, guard: true, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].replace(/^--/, '').split('=', 2);
    const value = () => inline ?? argv[++i];
    if (NUMBERS.includes(flag)) {
      o[flag] = Number(value());
      if (!Number.isFinite(o[flag]) || o[flag] < 0) throw new Error(`--${flag} needs a number`);
    } else if (flag === 'only') o.only = new RegExp(value());
    else if (flag === 'profile')
      o.profile = new RegExp(
        inline ?? (argv[i + 1]?.startsWith('--') === false ? argv[++i] : '^prod\\.getRoutes$'),
      );
    else if (FLAGS.includes(flag)) o[flag] = true;
    else if (flag.startsWith('no-') && FLAGS.includes(flag.slice(3))) o[flag.slice(3)] = false;
    else throw new Error(`unknown option ${argv[i]}\n\n${USAGE}`);
  }
  for (const [key, value] of Object.entries(DEFAULTS[o.quick ? 'quick' : 'full'])) o[key] ??= value;
  // A baseline is only worth committing without contention: measure such rounds again.
  o['retry-contended'] ??= o.baseline ? 3 : 0;
  if (o.connections < 1 || o.duration <= 0 || o.rounds < 1)
    throw new Error('--connections, --duration and --rounds must be positive');
  const out = Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k.replace(/-(\w)/g, (_, c) => c.toUpperCase()), v]),
  );
  for (const f of FIGURES) out[f] = o[f] && (!o.only || o.only.test(f));
  return { ...out, rounds: Math.floor(o.rounds), retryContended: Math.floor(o['retry-contended']) };
}
