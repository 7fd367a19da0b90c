import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { PEERS_DIR } from './peers-dir.js';

/** Where the real validator's and router's captured request/response pairs are. */
export const CAPTURES_DIR = process.env.PEERS_CAPTURES ?? path.join(PEERS_DIR, 'captures');

export interface Capture {
  readonly description: string;
  readonly request: { readonly body: string };
  readonly response: { readonly status: number; readonly body: string; readonly json: unknown };
}

export const hasCaptures = (): boolean => existsSync(path.join(CAPTURES_DIR, 'SUMMARY.md'));

/** A capture, e.g. `capture('validator', 'sigstatus-257')`. */
export function capture(target: 'validator' | 'router' | 'er-validator', name: string): Capture {
  return JSON.parse(readFileSync(path.join(CAPTURES_DIR, `${target}.${name}.json`), 'utf8')) as Capture;
}
