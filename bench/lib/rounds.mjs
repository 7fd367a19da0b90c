// The measured rounds of one group, its rows in turn in each (A B C, A B C, ...). A round in which any row noted CPU contention
// (another process, the hypervisor's steal) is measured again, all of its rows, up to
// `settings.retryContended` times: the rows of a round stay back to back, which is what
// the paired ratios rest on, and a baseline can be measured on a host whose neighbours
// steal a CPU now and then. Each round measured again is reported, with what it saw.
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/**
 * `measure(c)` measures row `c` once; when it throws, the row is not measured again and
 * its error is kept. Returns { samples: Map<id, sample[]>, errors: Map<id, string>,
 * remeasured: [{ round, contention }] } (rounds counted from 1).
 */
export async function measureRounds(members, settings, log, measure) {
  const samples = new Map(members.map((c) => [c.id, []]));
  const errors = new Map();
  const remeasured = [];
  const retries = settings.retryContended ?? 0;
  for (let round = 0; round < settings.rounds; round++) {
    for (let attempt = 0; ; attempt++) {
      const seen = [];
      for (const c of members) {
        if (errors.has(c.id)) continue;
        const label = `  round ${round + 1}/${settings.rounds} ${c.id}`;
        try {
          const sample = await measure(c);
          samples.get(c.id)[round] = sample;
          if (sample.contention) seen.push(`${c.id}: ${sample.contention}`);
          log(
            `${label}: ${fmt(sample.reqPerSec)} req/s${sample.contention ? `  [${sample.contention}]` : ''}`,
          );
        } catch (err) {
          errors.set(c.id, `round ${round + 1}: ${err.message}`);
          log(`${label}: ${errors.get(c.id)}`);
        }
      }
      if (seen.length === 0 || attempt >= retries) break;
      remeasured.push({ round: round + 1, contention: seen.join('; ') });
      log(`  round ${round + 1} measured again (${attempt + 1} of at most ${retries}): contention`);
    }
  }
  return { samples, errors, remeasured };
}

/** The note a row of the group carries when some of its rounds were measured again. */
export function remeasuredNote(remeasured) {
  if (remeasured.length === 0) return [];
  const rounds = [...new Set(remeasured.map((r) => r.round))].join(', ');
  return [`${remeasured.length} round(s) measured again after contention (round ${rounds})`];
}
