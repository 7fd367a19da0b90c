// Issue 10's "calls over the socket vs over HTTP": each ws.* row against the HTTP row
// it shares a server and rounds with (its `vs`), as ratios of calls/s and of server
// CPU per call. Both clients run in the bench process (autocannon, `ws`): the CPU
// ratio is the one that does not depend on which client is cheaper.
const fmt1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const fmtRatio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : '-');

/** `[{ id, what, httpId, ratio, cpuRatio, cpuUs, httpCpuUs }]` of the socket rows that ran. */
export function socketComparison(rows) {
  return rows
    .filter((r) => r.id.startsWith('ws.') && r.rounds > 0)
    .map((r) => {
      const pair = r.vs?.[0];
      const http = rows.find((x) => x.id === pair?.id && x.group === r.group);
      return {
        id: r.id,
        what: r.what,
        httpId: pair?.id,
        ratio: pair?.ratio,
        cpuRatio: pair?.cpuRatio,
        cpuUs: r.cpuUsPerRequest,
        httpCpuUs: http?.cpuUsPerRequest,
      };
    });
}

/** The lines printed under the table (empty when no socket row ran). */
export function socketLines(comparison) {
  if (comparison.length === 0) return '';
  const width = Math.max(...comparison.map((c) => c.id.length));
  return [
    'WebSocket vs HTTP (issue 10): the same call to the same server (production settings) in the same rounds, ' +
      'one call in flight per socket / keep-alive connection:',
    ...comparison.map(
      (c) =>
        `  ${c.id.padEnd(width)}  calls/s ${fmtRatio(c.ratio)} ${c.httpId}; server CPU µs/call ` +
        `${fmt1(c.cpuUs)} vs ${fmt1(c.httpCpuUs)} (${fmtRatio(c.cpuRatio)})`,
    ),
  ].join('\n');
}
