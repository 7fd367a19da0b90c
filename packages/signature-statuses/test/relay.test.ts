import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '@rollup-router/core';
import { closedPortUrl } from '@rollup-router/test-support/reusable-port';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { signatureStatusesPlugin } from '../src/index.js';

describe('signature-statuses: the upstream websocket relay', () => {
  it('names a failing upstream websocket by the upstream’s name, never its credentials, path or query', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const { port: wsPort } = new URL(await closedPortUrl());
    const plugin = signatureStatusesPlugin({
      upstreams: [
        {
          url: 'http://relay:s3cret@127.0.0.1:1/key-abc?api-key=hunter2',
          wsUrl: `ws://relay:s3cret@127.0.0.1:${wsPort}/key-abc?api-key=hunter2`,
        },
      ],
    });
    await plugin.start!({ log: createLogger({ level: 'info', destination }) });
    try {
      const [socket] = plugin.signatureRelay.sockets;
      await waitFor(() => lines.some((l) => l.includes('upstream websocket failed')), 'the failure logged');
      expect(socket!.name).to.equal('http://127.0.0.1:1/…');
      expect(socket!.isOpen).to.equal(false);
      const text = lines.join('');
      expect(text).to.include('"upstream":"http://127.0.0.1:1/…"');
      for (const secret of ['s3cret', 'key-abc', 'hunter2']) expect(text).not.to.include(secret);
    } finally {
      await plugin.stop!();
    }
  });
});
