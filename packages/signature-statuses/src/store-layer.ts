import type { PluginContext } from '@rollup-router/core';
import { findEach, type LearnedStatus, type StatusLayer } from './layer.js';
import type { ResolvedOptions } from './options.js';
import type { SignatureStatus } from './status.js';
import { requireSqlite, StatusStore, type FinalizedRecord } from './store.js';

/** The plugin's `store` option when there is a store. */
type StoreOptions = Exclude<ResolvedOptions['store'], false>;

/** The durable link of the chain: the SQLite store, open from start() to stop(). */
export class StoreLayer implements StatusLayer {
  readonly name = 'store';
  private opened: StatusStore | undefined;
  private log: PluginContext['log'] | undefined;

  constructor(private readonly options: StoreOptions) {
    // Refused when the plugin is made, not at start: the setting needs a package not installed.
    requireSqlite('signature-statuses option /store is set');
  }

  get path(): string {
    return this.options.path;
  }

  /** The open store, while started. */
  get store(): StatusStore | undefined {
    return this.opened;
  }

  /** One read for all of `signatures`: nothing new is made when the store knows none of them. */
  find(signatures: readonly string[], found: Map<string, SignatureStatus | null>): readonly string[] {
    const known = this.opened?.getMany(signatures);
    if (!known || known.size === 0) return signatures;
    return findEach(signatures, found, (s) => known.get(s));
  }

  /** The store keeps finalized statuses only: they never change; the others may. */
  learn(statuses: readonly LearnedStatus[]): void {
    const records: FinalizedRecord[] = [];
    for (const [signature, { confirmationStatus, slot, err }] of statuses)
      if (confirmationStatus === 'finalized') records.push({ signature, slot, err });
    if (!this.opened || records.length === 0) return;
    try {
      this.opened.putFinalized(records);
    } catch (err) {
      // The answer is still right; only its persistence failed.
      this.log?.error({ err }, 'could not write finalized statuses to the store');
    }
  }

  start(log: PluginContext['log']): void {
    this.log = log;
    this.opened = StatusStore.open(this.options.path, { filter: true, cacheMiB: this.options.cacheMiB });
  }

  stop(): void {
    this.opened?.close();
    this.opened = undefined;
  }
}
