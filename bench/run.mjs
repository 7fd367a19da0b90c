// The bench's one entry (bench/README.md). `npm run bench`: our servers and the baselines
// on loopback, each in its own child process, measured in interleaved rounds under the same
// autocannon load from this process; one table, the latency added, the WebSocket,
// subscription, relay and guard figures, the goals, one JSON file under bench/results.
// `-- --soak` and `-- --profile` measure the reference server otherwise; the modes
// (`-- --dispatch`, `--fanout`, `--notify-delay`, `--rss-unknown`) take arguments of their own.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compare } from './lib/groups.mjs';
import { dispatchMode, guardLines, measureGuard } from './lib/dispatch.mjs';
import { machineInfo, machineSlug } from './lib/proc.mjs';
import { parseOptions, USAGE } from './lib/options.mjs';
import { killChildrenOnExit, pinCpus } from './lib/processes.mjs';
import { computeOptionLines, goalRows } from './lib/goals.mjs';
import { goalChanges, previousResult } from './lib/previous.mjs';
import { profile } from './lib/profile.mjs';
import { fanout } from './lib/fanout.mjs';
import { notifyDelay } from './lib/notify-delay.mjs';
import { addedLines, contentionSummary, socketLines, textGoals, textTable } from './lib/report.mjs';
import { rssUnknown } from './lib/rss-unknown.mjs';
import { soak } from './lib/soak.mjs';
import { measureRelay, measureSubscriptions, relayLines, subscriptionLines } from './lib/subscriptions.mjs';

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));
const log = (line) => process.stderr.write(`${line}\n`);
const exit = (run) =>
  run.then(
    (code) => process.exit(code),
    (err) => {
      log(err.stack ?? String(err));
      process.exit(1);
    },
  );

const MODES = { dispatch: dispatchMode, fanout, 'notify-delay': notifyDelay, 'rss-unknown': rssUnknown };
const argv = process.argv.slice(2);
const mode = Object.keys(MODES).find((m) => argv.includes(`--${m}`));
if (mode) {
  killChildrenOnExit();
  await exit(MODES[mode](argv.filter((a) => a !== `--${mode}`)));
}

let options;
try {
  options = parseOptions(argv);
} catch (err) {
  log(err.message);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

killChildrenOnExit();
const started = Date.now();
const machine = machineInfo();
const pinned = pinCpus(options.pin);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const slug = machineSlug(machine);
// What every row is measured with, as written into each result file.
const KEYS = 'quick rounds duration warmup roundWarmup connections retryContended soakCalls';
const settings = {
  ...Object.fromEntries(KEYS.split(' ').map((k) => [k, options[k]])),
  only: options.only?.source,
};
const { quick, rounds, duration, warmup, roundWarmup, connections } = settings;
mkdirSync(RESULTS, { recursive: true });

const header = [
  `machine ${slug}: ${machine.nproc} CPU (${machine.cpuModel}), ${machine.memoryGiB} GiB, node ${machine.node}, ${machine.kernel}`,
  `load: autocannon, ${connections} connections, one request in flight each, POST on loopback; ` +
    `${quick ? 'QUICK mode: main cases, ' : ''}${rounds} rounds per group interleaved (A B A B), ${duration} s ` +
    `measured per row and round after ${roundWarmup} s of warm-up (${warmup} s more when a server starts); ` +
    'figures are medians over the rounds',
  pinned
    ? `CPUs: load generator on CPU ${pinned.loadGenerator}, our servers (and their upstream stand-in) on CPU ${pinned.targets}, and each peer (with the validator it forwards to) there too during its own rows`
    : 'CPUs: not pinned',
  'CPU µs/req: utime+stime of the server process (/proc) over the measured part of the round ÷ requests answered; ' +
    'upstream: the same for the process behind it (stand-in or validator A); others: the highest share of a CPU ' +
    'that processes outside the bench used in one round',
  'production settings: the reference server (loadConfig + startServer) with info call logs to a file, metrics on, ' +
    'default headers; lean: logs silent, metrics off; sampled and traced: options, not defaults',
];

const write = (name, data) => {
  const file = `${RESULTS}${name}`;
  const result = { date: new Date().toISOString(), machine, settings, pinned, header, ...data };
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  log(`written ${file}`);
};

async function main() {
  if (options.soak) {
    log(header[0]);
    const result = await soak(settings, log);
    write(`soak-${stamp}.json`, { soak: result });
    return result.leak || result.failures > 0 ? 1 : 0;
  }
  for (const line of header) log(line);
  if (options.profile) {
    const profiles = await profile(options.profile, settings, `${RESULTS}profile-${stamp}`, log);
    for (const p of profiles) console.log(`${p.text}\n`);
    write(`profile-${stamp}.json`, { profiles });
    return 0;
  }
  const prefix = `${quick ? 'quick-' : ''}${slug}-`;
  const previous = previousResult(RESULTS, prefix, `baseline-${slug}.json`);
  const { peers, rows, goals } = await compare(options, settings, log);
  const subscriptions = options.subscriptions ? await measureSubscriptions(log) : undefined;
  const relayAbsent = !peers.available && { error: `validator A absent: ${peers.reason}` };
  const relay = options.relay ? relayAbsent || (await measureRelay(log)) : undefined;
  const guard = options.guard ? await measureGuard(log) : undefined;
  const contention = contentionSummary(rows, goalRows(rows));
  const optionLines = computeOptionLines(rows);
  const figures = [
    addedLines(rows),
    socketLines(rows),
    subscriptions && subscriptionLines(subscriptions),
    relay && relayLines(relay),
    guard && guardLines(guard),
  ].filter(Boolean);
  console.log(
    `\n${header.join('\n')}\n\n${textTable(rows)}\n\n${figures.map((t) => `${t}\n\n`).join('')}` +
      `${textGoals(goals, optionLines)}\n\n${goalChanges(goals, previous)}\n\n${contention}\n`,
  );
  const peerFields = { available: peers.available, reason: peers.reason, pids: peers.pids };
  const durationSeconds = Math.round((Date.now() - started) / 1000);
  const result = {
    mode: quick ? 'quick' : 'full',
    durationSeconds,
    peers: peerFields,
    contention,
    rows,
    goals,
  };
  Object.assign(result, { optionLines, subscriptions, relay, guard });
  write(`${prefix}${stamp}.json`, result);
  if (options.baseline) write(`baseline-${slug}.json`, result);
  log(`bench took ${durationSeconds} s`);
  return rows.some((r) => r.error && !r.rounds) ? 1 : 0;
}

await exit(main());
