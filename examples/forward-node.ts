// Any JSON-RPC node behind the service, method by method: here an EVM node's reads, each
// call sent to the node its params name (a chain id picks one of two), with the node's
// answer passed back byte for byte and a reply cap per method. Your own methods sit beside
// them. The node's URLs come from the environment (NODE_A_URL, NODE_B_URL).
// Run: NODE_A_URL=... NODE_B_URL=... node --import tsx examples/forward-node.ts   (PORT=0 picks a free port)
import http from 'node:http';
import {
  createNodeListener,
  createRpc,
  defineErrors,
  definePlugin,
  forwardedMethods,
  Forwarder,
  JsonRpcClient,
  RpcError,
  type ForwardTarget,
} from '@rollup-router/core';

const NodeError = defineErrors({
  NODE_UNAVAILABLE: {
    code: -32090,
    message: 'Node unavailable',
    meaning: 'the node did not answer; data names it',
  },
  NODE_REPLY_TOO_LARGE: {
    code: -32091,
    message: 'Node reply too large',
    meaning: 'the reply passed its cap',
  },
  UNKNOWN_CHAIN: { code: -32092, message: 'Unknown chain', meaning: 'no node serves this chain id' },
});

const nodes: Record<string, ForwardTarget> = {
  '0x1': { name: 'chain-1', url: process.env.NODE_A_URL ?? 'http://127.0.0.1:8545' },
  '0x2': { name: 'chain-2', url: process.env.NODE_B_URL ?? 'http://127.0.0.1:8546' },
};
/** Params end with the chain id this example's clients name: `[..., "0x1"]`. */
const nodeOf = (params: readonly unknown[]): ForwardTarget => {
  const node = nodes[String(params.at(-1))];
  if (node === undefined) throw RpcError.from(NodeError.UNKNOWN_CHAIN, { chainId: params.at(-1) });
  return node;
};

const forwarder = new Forwarder(new JsonRpcClient(), {
  timeoutMs: 5000,
  errors: { unavailable: NodeError.NODE_UNAVAILABLE, tooLarge: NodeError.NODE_REPLY_TOO_LARGE },
});
const params = { type: 'array', minItems: 1, maxItems: 4 } as const;

const rpc = createRpc({
  plugins: [
    definePlugin({
      name: 'evm-reads',
      errors: Object.values(NodeError),
      methods: forwardedMethods(forwarder, [
        { name: 'eth_blockNumber', params, targetOf: nodeOf, maxReplyBytes: 1024 },
        { name: 'eth_getBalance', params, targetOf: nodeOf, maxReplyBytes: 1024 },
        { name: 'eth_getBlockByNumber', params, targetOf: nodeOf, maxReplyBytes: 16 << 20 },
      ]),
      stop: () => forwarder.close(),
    }),
  ],
});

await rpc.start();
const server = http.createServer(createNodeListener(rpc));
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : address;
  console.log(`listening on http://127.0.0.1:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    void rpc.stop();
  });
}
