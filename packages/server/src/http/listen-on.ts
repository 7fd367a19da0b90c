import type { Server } from 'node:http';
import { ConfigError } from '../config/config-error.js';

/** What a listener's port is for, for the message when that port is taken. */
export interface PortRole {
  /** e.g. `the HTTP port`. */
  readonly what: string;
  /** Its config key, as a JSON pointer. */
  readonly key: string;
  /** Its environment variable, when it has one. */
  readonly env?: string;
  /** How to run without this listener, when one can. */
  readonly off?: string;
}

/**
 * Binds `server`. A port in use is a ConfigError (the CLI prints it on stderr, exit 2)
 * naming the port, what it is for and where it is set: the WebSocket port is one the
 * user may never have named.
 */
export function listenOn(server: Server, port: number, host: string, role: PortRole): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      if (err.code !== 'EADDRINUSE') return reject(err);
      const where = role.env === undefined ? role.key : `${role.key} (${role.env})`;
      const off = role.off === undefined ? '' : `, ${role.off}`;
      reject(
        new ConfigError(
          `port ${port} on ${host} is in use: it is ${role.what}; choose another with ${where}${off}`,
        ),
      );
    };
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
