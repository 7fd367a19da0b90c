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
  /** Where the host is set, when not `/host (HOST)`. */
  readonly hostKey?: string;
}

/** Why a host cannot be listened on, by the error's code; other codes are not the host's fault. */
const HOST_FAULTS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'the name does not resolve',
  EAI_AGAIN: 'the name does not resolve',
  EADDRNOTAVAIL: 'it is not an address of this machine',
};

/**
 * Binds `server`. A port in use, or a host that is not this machine's, is a ConfigError (the
 * CLI prints it on stderr, exit 2) naming the port or host, what it is for and where it is
 * set: the WebSocket port is one the user may never have named.
 */
export function listenOn(server: Server, port: number, host: string, role: PortRole): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const hostFault = HOST_FAULTS[err.code ?? ''];
      if (hostFault !== undefined)
        return reject(
          new ConfigError(
            `cannot listen on host ${host} for ${role.what}: ${hostFault} (${err.code}); choose another with ${role.hostKey ?? '/host (HOST)'}`,
          ),
        );
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
