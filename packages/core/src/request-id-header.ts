import { randomUUID } from 'node:crypto';

// A caller's id goes into every log line; anything but a short token could forge lines.
const SAFE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}
