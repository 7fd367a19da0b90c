import { parseArgs } from 'node:util';
import { ENV_OVERRIDES } from '../config/env-overrides.js';

export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'serve';
      readonly config?: string;
      readonly host?: string;
      readonly port?: string;
      readonly logLevel?: string;
      readonly workers?: string;
      readonly plugins: readonly string[];
    }
  | { readonly kind: 'check-config'; readonly file: string }
  | { readonly kind: 'import-statuses'; readonly file: string; readonly config?: string };

/** Wrong arguments: the CLI prints the message and the usage line and exits with code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `Usage:
  rollup-router [--config FILE] [--host HOST] [--port PORT] [--log-level LEVEL] [--workers N|auto]
                [--plugin MODULE]...
  rollup-router check-config FILE
  rollup-router import-statuses FILE [--config FILE]
  rollup-router --help | --version`;

export function helpText(): string {
  const width = Math.max(...ENV_OVERRIDES.map((o) => o.name.length), 'ROLLUP_ROUTER_CONFIG'.length);
  const env = [
    `  ${'ROLLUP_ROUTER_CONFIG'.padEnd(width)}  config file, when --config is not given`,
    ...ENV_OVERRIDES.map((o) => `  ${o.name.padEnd(width)}  ${o.key}: ${o.format}`),
  ].join('\n');
  return `rollup-router: a JSON-RPC router for Solana ephemeral rollup nodes (getRoutes, getSignatureStatuses).

${USAGE}

Commands:
  (none)                  serve: POST / (JSON-RPC) and POST /<method>, GET /health, /ready, /metrics
  check-config FILE       validate a config file (and the routes it names; with redis, connect once:
                          credentials Redis refuses are invalid); exit 0 if valid, 2 if not
  import-statuses FILE    import finalized statuses (JSON Lines) into the configured SQLite store;
                          all or nothing: a bad line rejects the file (exit 2)

Options:
  -c, --config FILE       JSON or YAML config (schemas/config.schema.json); default: embedded defaults
      --host HOST         listen address (overrides config and HOST)
  -p, --port PORT         listen port, 0 for any free one (overrides config and PORT)
      --log-level LEVEL   fatal|error|warn|info|debug|trace|silent (overrides config and LOG_LEVEL)
      --workers N|auto    server processes sharing the port (overrides config and ROLLUP_ROUTER_WORKERS);
                          auto: the CPUs this process may use (its cgroup's quota included)
      --plugin MODULE     also serve the methods of this plugin module (a path or a package name;
                          its default export is a Plugin or a function returning one); repeatable
  -h, --help              this text
  -v, --version           the version

Environment (overrides the config file; flags override the environment):
${env}

Signals: SIGTERM/SIGINT stop gracefully (a second one exits at once); SIGHUP reloads the routes file.
Exit codes: 0 done, 1 failure while running, 2 invalid config, arguments or input.`;
}

export function parseCommand(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        config: { type: 'string', short: 'c' },
        host: { type: 'string' },
        port: { type: 'string', short: 'p' },
        'log-level': { type: 'string' },
        workers: { type: 'string' },
        plugin: { type: 'string', multiple: true },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [command, file, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const serveOnly = (): void => {
    const given = (['host', 'port', 'log-level', 'workers', 'plugin'] as const).find(
      (k) => values[k] !== undefined,
    );
    if (given) throw new UsageError(`--${given} applies only when serving`);
  };
  switch (command) {
    case undefined:
    case 'serve':
      if (file !== undefined) throw new UsageError(`unexpected argument: ${file}`);
      return {
        kind: 'serve',
        config: values.config,
        host: values.host,
        port: values.port,
        logLevel: values['log-level'],
        workers: values.workers,
        plugins: values.plugin ?? [],
      };
    case 'check-config':
      serveOnly();
      if (file === undefined) throw new UsageError('check-config needs the config FILE to check');
      if (values.config !== undefined)
        throw new UsageError('check-config takes the file as its argument, not --config');
      return { kind: 'check-config', file };
    case 'import-statuses':
      serveOnly();
      if (file === undefined) throw new UsageError('import-statuses needs the JSON Lines FILE to import');
      return { kind: 'import-statuses', file, config: values.config };
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}
