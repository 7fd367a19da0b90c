import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { RouteListError } from '../route-list-error.js';

const isYaml = (file: string): boolean => /^\.ya?ml$/i.test(path.extname(file));

/** Parses a routes file's text: YAML for .yaml/.yml, JSON otherwise. Syntax errors name the place. */
export function parseRoutesText(file: string, text: string): unknown {
  try {
    return isYaml(file) ? parseYaml(text, { prettyErrors: true }) : JSON.parse(text);
  } catch (err) {
    const message =
      err instanceof YAMLParseError
        ? `invalid YAML at line ${err.linePos?.[0].line ?? '?'}, column ${err.linePos?.[0].col ?? '?'}: ${err.message.split('\n')[0]}`
        : `invalid JSON: ${(err as Error).message}`;
    throw new RouteListError([{ source: file, rule: 'syntax', message }]);
  }
}
