import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './config-error.js';

const YAML_FILE = /\.ya?ml$/i;

/** The content of a JSON or YAML (by extension) config file, not yet validated. */
export async function readConfigFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  try {
    return YAML_FILE.test(file) ? (parseYaml(text) as unknown) : (JSON.parse(text) as unknown);
  } catch (err) {
    throw new ConfigError(
      `config file ${file} is not valid ${YAML_FILE.test(file) ? 'YAML' : 'JSON'}: ${(err as Error).message}`,
    );
  }
}
