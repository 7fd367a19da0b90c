// What the tests of the bench's baseline rows share: the bench's own modules, loaded as the
// runner loads them, and how a row's answer and call log are read.
import { readFileSync } from 'node:fs';

/** A bench target started by the bench's own startTarget (bench/lib/processes.mjs). */
export interface Target {
  url: string;
  absent?: string;
  logFile?: string;
  stop(): Promise<void>;
}

/** A bench row, as its cases module builds it. */
export interface Case {
  id: string;
  vs?: string[];
  target: { script: string; args: string[] };
}

/** A module of bench/lib. */
export const loadBench = <T>(file: string): Promise<T> =>
  import(new URL(`../../bench/lib/${file}`, import.meta.url).href) as Promise<T>;

/** Header names of a reply, less the ones Node adds to every reply. */
export const headerNames = (h: Headers): string[] =>
  [...h.keys()].filter((n) => !['date', 'connection', 'keep-alive'].includes(n)).sort();

/** The call lines of a log file. */
export const callLines = (file: string): Record<string, unknown>[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'call');

/**
 * The call lines of a running server's log file, once its batch is written (logFlushMs): a
 * server that goes on running writes its file only then.
 */
export async function writtenCallLines(file: string): Promise<Record<string, unknown>[]> {
  let lines = callLines(file);
  for (let tries = 0; lines.length === 0 && tries < 100; tries++) {
    await new Promise((r) => setTimeout(r, 50));
    lines = callLines(file);
  }
  return lines;
}

/** A call line's fields, less the host's name. */
export const lineShape = (line: Record<string, unknown>): string[] =>
  Object.keys(line)
    .filter((k) => k !== 'hostname')
    .sort();
