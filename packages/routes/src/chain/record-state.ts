import type { RouteEntry } from '../generated/schemas.js';
import type { EntryIssue } from '../check-route-list.js';
import { decodeErRecord, statusOf } from './er-record-codec.js';
import type { RecordState } from './record-table.js';

/** An account as getProgramAccounts and the notifications give it, data in base64. */
export interface ChainAccount {
  readonly lamports: bigint | number;
  readonly owner: string;
  readonly data: readonly [string, string] | string;
}

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

const base64Of = (data: ChainAccount['data']): string => (typeof data === 'string' ? data : data[0]);

/**
 * What a registry account means for getRoutes. Closed: what Unregister leaves (zero
 * lamports, no data, handed to the System Program) or no longer the program's. Listed:
 * an Active record whose route entry passes the route-entry schema. Anything else is
 * unlisted; `skipped` marks the ones an operator should hear about (unknown variant,
 * malformed, or an entry the schema refuses).
 */
export function recordState(
  account: ChainAccount | null,
  programId: string,
  entryIssues: (entry: RouteEntry) => readonly EntryIssue[],
): RecordState {
  if (!account) return { kind: 'closed' };
  const data = base64Of(account.data);
  const closed =
    BigInt(account.lamports) === 0n ||
    data === '' ||
    account.owner === SYSTEM_PROGRAM ||
    account.owner !== programId;
  if (closed) return { kind: 'closed' };
  const decoded = decodeErRecord(Buffer.from(data, 'base64'));
  if (!decoded.ok) return { kind: 'unlisted', why: decoded.reason, skipped: true };
  const { record } = decoded;
  const status = statusOf(record);
  if (status !== 'Active') return { kind: 'unlisted', why: `status ${status}`, skipped: false };
  const entry: RouteEntry = {
    identity: record.identity,
    fqdn: record.addr,
    baseFee: record.baseFee,
    blockTimeMs: record.blockTimeMs,
    countryCode: record.countryCode as RouteEntry['countryCode'],
  };
  const issues = entryIssues(entry);
  if (issues.length > 0) {
    const why = issues.map((i) => `${i.field ?? 'entry'}: ${i.message} (${i.rule})`).join('; ');
    return { kind: 'unlisted', why: `route entry refused: ${why}`, skipped: true };
  }
  return { kind: 'listed', entry };
}
