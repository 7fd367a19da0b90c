/**
 * A configuration the server refuses to run with. The CLI prints the message (which
 * names the key and the rule) and exits with code 2; nothing has started by then.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
