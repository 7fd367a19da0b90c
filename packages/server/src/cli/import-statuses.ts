import { importStatuses, type ImportCounts } from '@rollup-router/signature-statuses';
import { ConfigError } from '../config/config-error.js';
import { loadConfig } from '../config/load-config.js';

export interface ImportReport extends ImportCounts {
  readonly file: string;
  readonly store: string;
}

/**
 * Imports a JSON Lines file of finalized statuses into the store the configuration names
 * (the server may be running: SQLite's WAL lets both write). All or nothing: a bad line
 * throws the plugin's ImportLineError and nothing is written.
 */
export async function importStatusesCommand(
  file: string,
  configFile: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ImportReport> {
  const { config, source } = await loadConfig({ file: configFile, env });
  if (config.statuses.store === false) {
    throw new ConfigError(
      `invalid config (${source}): /statuses/store is false; there is no store to import into`,
    );
  }
  const counts = await importStatuses(config.statuses.store.path, file);
  return { file, store: config.statuses.store.path, ...counts };
}
