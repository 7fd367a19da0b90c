import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadOptionalPackage } from '@rollup-router/core';
// Only in private members and bodies: the declarations name no type of this optional peer.
import type Database from 'better-sqlite3';
import { SignatureBloom } from './signature-bloom.js';
import { finalizedStatus, type SignatureStatus, type TransactionError } from './status.js';

/** A finalized status as the store keeps it. */
export interface FinalizedRecord {
  readonly signature: string;
  readonly slot: number;
  readonly err: TransactionError | null;
}

interface Row {
  slot: number;
  err: string | null;
}

interface KeyedRow extends Row {
  signature: string;
}

export interface StatusStoreOptions {
  /**
   * Keep a Bloom filter of the stored signatures in memory, so that a signature the store
   * does not hold is ruled out without a read (the common case: clients ask about
   * transactions that have not landed). Built in the background after open; until then,
   * and whenever another connection has written (the import CLI, another process), every
   * lookup reads. Default false: a short-lived writer (the import) has no use for it.
   */
  readonly filter?: boolean;
  /**
   * SQLite's page cache of this connection, in MiB (default 2, SQLite's own). better-sqlite3
   * builds SQLite with 16 MiB: the soak's RSS rose by 8-9% as a growing store filled it, while
   * reads measured as fast with 2 (README, Performance). Pages beyond it come from the
   * operating system's file cache, outside the process.
   */
  readonly cacheMiB?: number;
}

/** Signatures read per step of the filter's build: one short statement per event-loop turn. */
const BUILD_SLICE = 5_000;
/** The smallest filter built (128 KiB). */
const MIN_FILTER_CAPACITY = 65_536;
/** Bytes per stored row, about: sizes a filter from the file before it is read. */
const ROW_BYTES = 100;
const DEFAULT_CACHE_MIB = 2;

/**
 * The durable link of the chain: finalized statuses in SQLite (WAL, so readers never wait
 * for the writer). A finalized status never changes, so a row is written once and never
 * updated: a second write of the same signature is ignored.
 */
export class StatusStore {
  private readonly db: Database.Database;
  private readonly selectOne: Database.Statement<[string], Row>;
  private readonly selectMany: Database.Statement<[string], KeyedRow>;
  private readonly insertOne: Database.Statement<[string, number, string | null]>;
  private readonly insertMany: (records: readonly FinalizedRecord[]) => number;
  private readonly dataVersion: Database.Statement<[], number>;
  private readonly signaturesAfter: Database.Statement<[string], string>;
  /** The filter, complete for the data version it was built at (`filterVersion`). */
  private filter: SignatureBloom | undefined;
  private filterVersion = -1;
  /** The filter being built; it also takes what this connection writes meanwhile. */
  private building: SignatureBloom | undefined;
  private turnVersion: number | undefined;

  private constructor(
    Sqlite: typeof Database,
    readonly path: string,
    { filter: filtered = false, cacheMiB = DEFAULT_CACHE_MIB }: StatusStoreOptions,
  ) {
    // The plugin's schema bounds it; this keeps the pragma below a number for direct callers.
    if (!(Number.isFinite(cacheMiB) && cacheMiB > 0))
      throw new RangeError(
        `@rollup-router/signature-statuses: cacheMiB must be a number above 0, not ${cacheMiB}`,
      );
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    this.db = new Sqlite(path);
    this.db.pragma('journal_mode = WAL');
    // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the last commits.
    this.db.pragma('synchronous = NORMAL');
    // The import CLI may write while the server runs; wait for the lock instead of failing.
    this.db.pragma('busy_timeout = 5000');
    // Negative: a size in KiB rather than in pages.
    this.db.pragma(`cache_size = ${-Math.round(cacheMiB * 1024)}`);
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS signature_statuses (
         signature TEXT PRIMARY KEY NOT NULL,
         slot INTEGER NOT NULL,
         err TEXT
       ) WITHOUT ROWID`,
    );
    this.selectOne = this.db.prepare<[string], Row>(
      'SELECT slot, err FROM signature_statuses WHERE signature = ?',
    );
    // One statement for a whole list: a statement per signature cost about 4 µs each
    // (256 misses were a fifth of a fresh 256-signature call under --cpu-prof); the list
    // goes as one JSON array, so any length is one prepared statement.
    this.selectMany = this.db.prepare<[string], KeyedRow>(
      `SELECT s.signature, s.slot, s.err FROM json_each(?) AS j
         JOIN signature_statuses AS s ON s.signature = j.value`,
    );
    this.insertOne = this.db.prepare<[string, number, string | null]>(
      'INSERT OR IGNORE INTO signature_statuses (signature, slot, err) VALUES (?, ?, ?)',
    );
    this.insertMany = this.db.transaction((records: readonly FinalizedRecord[]) => {
      let inserted = 0;
      for (const r of records) {
        inserted += this.insertOne.run(
          r.signature,
          r.slot,
          r.err === null ? null : JSON.stringify(r.err),
        ).changes;
      }
      return inserted;
    });
    // Changes when another connection commits, not when this one does.
    this.dataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    this.signaturesAfter = this.db
      .prepare<[string], string>(
        `SELECT signature FROM signature_statuses WHERE signature > ? ORDER BY signature LIMIT ${BUILD_SLICE}`,
      )
      .pluck();
    if (filtered) this.buildFilter(MIN_FILTER_CAPACITY);
  }

  /** Opens (creating when missing) the store at `path`. */
  static open(path: string, options: StatusStoreOptions = {}): StatusStore {
    return new StatusStore(loadSqlite('StatusStore.open is called'), path, options);
  }

  /** True while the Bloom filter (option `filter`) rules out lookups: built, and no other connection has written since. */
  get filtering(): boolean {
    return this.usableFilter() !== undefined;
  }

  get open(): boolean {
    return this.db.open;
  }

  get(signature: string): SignatureStatus | undefined {
    return this.usableFilter()?.mightHave(signature) === false ? undefined : this.read(signature);
  }

  /** The stored statuses among `signatures`, by signature; the unknown ones are absent. */
  getMany(signatures: readonly string[]): Map<string, SignatureStatus> {
    const found = new Map<string, SignatureStatus>();
    const filter = this.usableFilter();
    const asked = filter ? signatures.filter((s) => filter.mightHave(s)) : signatures;
    if (asked.length === 1) {
      const status = this.read(asked[0]!);
      if (status) found.set(asked[0]!, status);
    } else if (asked.length > 1) {
      for (const row of this.selectMany.all(JSON.stringify(asked))) found.set(row.signature, statusOf(row));
    }
    return found;
  }

  private read(signature: string): SignatureStatus | undefined {
    const row = this.selectOne.get(signature);
    return row && statusOf(row);
  }

  /** Writes the records in one transaction; those already stored are left as they are. Returns how many were new. */
  putFinalized(records: readonly FinalizedRecord[]): number {
    if (records.length === 0) return 0;
    const inserted = this.insertMany(records);
    for (const bloom of [this.filter, this.building]) {
      if (bloom) for (const r of records) bloom.add(r.signature);
    }
    if (this.filter?.full === true && !this.building) this.buildFilter(2 * this.filter.capacity);
    return inserted;
  }

  /**
   * The data version, read once per event-loop turn: a commit of another connection is seen
   * from the turn after it, as if it had landed a moment later. A read per lookup cost as
   * much as the one SQLite read the filter spares a one-signature lookup (bench:dispatch).
   */
  private version(): number {
    if (this.turnVersion === undefined) {
      this.turnVersion = this.dataVersion.get() ?? 0;
      setImmediate(this.forgetVersion).unref();
    }
    return this.turnVersion;
  }

  private readonly forgetVersion = (): void => {
    this.turnVersion = undefined;
  };

  /** The filter when it can rule lookups out: another connection's write makes it incomplete, and starts a build. */
  private usableFilter(): SignatureBloom | undefined {
    if (!this.filter) return undefined;
    if (this.version() === this.filterVersion) return this.filter;
    this.filter = undefined;
    this.buildFilter(MIN_FILTER_CAPACITY);
    return undefined;
  }

  /**
   * Reads every stored signature into a new filter, a slice per event-loop turn (keyset
   * pages: no statement stays open across turns, so lookups and writes go on meanwhile).
   */
  private buildFilter(minCapacity: number): void {
    if (this.building || !this.db.open) return;
    const version = this.version();
    const fileBytes =
      (this.db.pragma('page_count', { simple: true }) as number) *
      (this.db.pragma('page_size', { simple: true }) as number);
    const bloom = new SignatureBloom(Math.max(minCapacity, Math.ceil(fileBytes / ROW_BYTES)));
    this.building = bloom;
    let after = '';
    const step = (): void => {
      if (this.building !== bloom || !this.db.open) return;
      const slice = this.signaturesAfter.all(after);
      for (const signature of slice) bloom.add(signature);
      if (slice.length === BUILD_SLICE) {
        after = slice[slice.length - 1]!;
        setImmediate(step).unref();
        return;
      }
      this.building = undefined;
      // Complete for `version`: if another connection wrote meanwhile, the next lookup sees it and builds again.
      this.filter = bloom;
      this.filterVersion = version;
    };
    setImmediate(step).unref();
  }

  /** How many statuses are stored. */
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM signature_statuses').get() as { n: number }).n;
  }

  close(): void {
    this.building = undefined;
    this.filter = undefined;
    if (this.db.open) this.db.close();
  }
}

/**
 * better-sqlite3, an optional peer (a native build): loaded when a store is opened or
 * configured. `neededBy` says what asked for it, for the error when it is not installed.
 */
const loadSqlite = (neededBy: string): typeof Database =>
  loadOptionalPackage<typeof Database>(import.meta.url, 'better-sqlite3', neededBy);

/**
 * Throws, naming better-sqlite3 and `neededBy`, when it is not installed: a setting that
 * needs it is refused when made. Returns nothing, so that no declaration of the package
 * names a type of better-sqlite3 (its Database stays in StatusStore's private members).
 */
export function requireSqlite(neededBy: string): void {
  loadSqlite(neededBy);
}

const statusOf = (row: Row): SignatureStatus =>
  finalizedStatus(row.slot, row.err === null ? null : (JSON.parse(row.err) as TransactionError));
