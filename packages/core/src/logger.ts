import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

/** Wherever a secret could land in a log line, pino writes this instead. */
export const REDACTED_PATHS: readonly string[] = [
  'authorization',
  'headers.authorization',
  '*.headers.authorization',
  'apiKey',
  'apiKeys',
  '*.apiKey',
  '*.apiKeys',
  '["api-key"]',
  '*["api-key"]',
  'query',
  '*.query',
];

export interface LoggerOptions {
  readonly level?: LevelWithSilent;
  /** Defaults to stdout, written asynchronously so a slow terminal does not slow calls. */
  readonly destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
      base: { pid: process.pid },
    },
    destination,
  );
}
