import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { compileSchema } from '@rollup-router/core';
import { statusesImportLineSchema, type StatusesImportLine } from './generated/schemas.js';
import { statusMatchesErr } from './status.js';
import { StatusStore, type FinalizedRecord } from './store.js';

export interface ImportCounts {
  /** Status lines read (blank lines are not counted). */
  readonly lines: number;
  /** Statuses written now. */
  readonly imported: number;
  /** Statuses the store already had (from an earlier import, an upstream, or an earlier line). */
  readonly alreadyPresent: number;
}

/** A line that is not a valid finalized status; nothing of the file was written. */
export class ImportLineError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'ImportLineError';
  }
}

const validateLine = compileSchema<StatusesImportLine>(statusesImportLineSchema);

/**
 * Imports finalized statuses from JSON Lines (a file path or a stream) into a store (a
 * path or an open store). All or nothing: every line is checked first, and one bad line
 * rejects the whole import with an ImportLineError naming it. Importing the same file
 * again changes nothing. The statuses are held in memory until written, in one transaction.
 */
export async function importStatuses(
  store: string | StatusStore,
  input: string | Readable,
): Promise<ImportCounts> {
  const records = await readRecords(typeof input === 'string' ? createReadStream(input) : input);
  const target = typeof store === 'string' ? StatusStore.open(store) : store;
  try {
    const imported = target.putFinalized(records);
    return { lines: records.length, imported, alreadyPresent: records.length - imported };
  } finally {
    if (typeof store === 'string') target.close();
  }
}

async function readRecords(input: Readable): Promise<FinalizedRecord[]> {
  const records: FinalizedRecord[] = [];
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const raw of lines) {
      n += 1;
      const text = (n === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (text === '') continue;
      records.push(parseLine(text, n));
    }
  } finally {
    lines.close();
    input.destroy();
  }
  return records;
}

function parseLine(text: string, n: number): FinalizedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ImportLineError(n, 'not valid JSON');
  }
  if (!validateLine(value)) {
    const f = validateLine.failure();
    throw new ImportLineError(n, `${f.path} ${f.message} (${f.rule})`);
  }
  if (value.status !== undefined && !statusMatchesErr(value.status, value.err)) {
    throw new ImportLineError(n, '/status does not carry the same error as /err');
  }
  return { signature: value.signature, slot: value.slot, err: value.err };
}
