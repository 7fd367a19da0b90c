import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A pino logger that writes into memory, so tests can read what an operator would see. */
export function captureLogs(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}
