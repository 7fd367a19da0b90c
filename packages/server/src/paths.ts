import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The routes file the server loads when it runs on embedded defaults. */
export const exampleRoutesFile = fileURLToPath(new URL('../defaults/routes.example.json', import.meta.url));

/** The version in this package's package.json, for --version and the /metrics info gauge. */
export const version: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
