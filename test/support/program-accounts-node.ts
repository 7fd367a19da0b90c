// A Solana node on loopback that holds one program's accounts, as set by the test: over
// HTTP, getProgramAccounts (base64, withContext) lists them and getAccountInfo reads one;
// getSlot and getHealth answer probes. Its websocket acknowledges every subscription and
// notifies nothing, so a reader goes on as it would against a node where nothing changes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AcknowledgingSockets } from './acknowledging-sockets.js';

export interface ProgramAccount {
  readonly pubkey: string;
  readonly data: Uint8Array;
  readonly lamports?: number;
}

interface Call {
  readonly id: unknown;
  readonly method: string;
  readonly params?: readonly unknown[];
}

export class ProgramAccountsNode {
  readonly slot = 4242;
  /** The JSON-RPC methods asked over HTTP, in order. */
  readonly methods: string[] = [];
  private readonly sockets = new AcknowledgingSockets();

  private constructor(
    private readonly server: http.Server,
    readonly programId: string,
    private readonly accounts: readonly ProgramAccount[],
  ) {}

  static async start(programId: string, accounts: readonly ProgramAccount[]): Promise<ProgramAccountsNode> {
    const server = http.createServer();
    const node = new ProgramAccountsNode(server, programId, accounts);
    server.on('request', (req, res) => void node.answer(req, res));
    server.on('upgrade', node.sockets.upgrade);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.sockets.terminate();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call;
    this.methods.push(call.method);
    const reply = this.reply(call);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...reply }));
  }

  private reply(call: Call): { result: unknown } | { error: { code: number; message: string } } {
    const context = { apiVersion: '2.2.1', slot: this.slot };
    switch (call.method) {
      case 'getProgramAccounts':
        return {
          result: {
            context,
            value: this.accounts.map((a) => ({ pubkey: a.pubkey, account: this.account(a) })),
          },
        };
      case 'getAccountInfo': {
        const found = this.accounts.find((a) => a.pubkey === call.params?.[0]);
        return { result: { context, value: found === undefined ? null : this.account(found) } };
      }
      case 'getSlot':
        return { result: this.slot };
      case 'getHealth':
        return { result: 'ok' };
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  }

  private account(a: ProgramAccount) {
    return {
      data: [Buffer.from(a.data).toString('base64'), 'base64'],
      executable: false,
      lamports: a.lamports ?? 1_500_000,
      owner: this.programId,
      rentEpoch: 0,
      space: a.data.length,
    };
  }
}
