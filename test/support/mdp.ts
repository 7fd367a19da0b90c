// Registers and unregisters ER records through the real Magic Domain Program on
// validator A, with @solana/kit: the same transactions an ER validator sends.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  getProgramDerivedAddress,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import {
  encodeErRecord,
  ER_RECORD_SEED,
  ER_STATUSES,
  MDP_PROGRAM_ID,
  type ErStatus,
} from '@rollup-router/routes';
import { rpcCall } from './http.js';
import { waitFor } from './wait-for.js';

export const CHAIN_URL = 'http://127.0.0.1:17799';
export const CHAIN_WS = { host: '127.0.0.1', port: 17800 };
const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
const MDP = address(MDP_PROGRAM_ID);
const REGISTER = 0;
const UNREGISTER = 1;
const SYNC = 2;

const rpc = createSolanaRpc(CHAIN_URL);

export interface RecordFields {
  readonly status?: ErStatus;
  readonly addr: string;
  readonly baseFee?: number;
  readonly blockTimeMs?: number;
  readonly countryCode?: string;
}

export const recordAddress = async (identity: Address): Promise<Address> =>
  (
    await getProgramDerivedAddress({
      programAddress: MDP,
      seeds: [ER_RECORD_SEED, getAddressEncoder().encode(identity)],
    })
  )[0];

/** Waits until A has the transaction confirmed; throws when it failed. */
export async function confirmed(signature: Signature): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status?.err) throw new Error(`transaction ${signature} failed: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return;
    await sleep(25);
  }
  throw new Error(`transaction ${signature} not confirmed in time`);
}

/** A fresh identity with lamports to pay for its record. */
export async function fundedIdentity(): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  await confirmed(await rpc.requestAirdrop(signer.address, lamports(1_000_000_000n)).send());
  return signer;
}

async function send(signer: KeyPairSigner, data: Uint8Array): Promise<void> {
  const record = await recordAddress(signer.address);
  const instruction = {
    programAddress: MDP,
    accounts: [
      { address: signer.address, role: AccountRole.WRITABLE_SIGNER as const, signer },
      { address: record, role: AccountRole.WRITABLE as const },
      { address: SYSTEM_PROGRAM, role: AccountRole.READONLY as const },
    ],
    data,
  };
  const { value: blockhash } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(signer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstruction(instruction, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
  await confirmed(getSignatureFromTransaction(signed));
}

/** `Register(ErRecord)`: instruction 0, then the record exactly as it is stored. */
export async function register(signer: KeyPairSigner, fields: RecordFields): Promise<void> {
  const record = encodeErRecord({
    identity: signer.address,
    status: ER_STATUSES.indexOf(fields.status ?? 'Active'),
    blockTimeMs: fields.blockTimeMs ?? 50,
    baseFee: fields.baseFee ?? 0,
    features: new Uint8Array(32),
    loadAverage: 0,
    countryCode: fields.countryCode ?? 'USA',
    addr: fields.addr,
  });
  await send(signer, new Uint8Array([REGISTER, ...record]));
}

/** `Unregister(Pubkey)`: instruction 1, then the identity. */
export async function unregister(signer: KeyPairSigner): Promise<void> {
  await send(signer, new Uint8Array([UNREGISTER, ...getAddressEncoder().encode(signer.address)]));
}

/**
 * `Sync(SyncInstruction::V0(SyncRecordV0))` changing only the status: the identity, then
 * seven borsh Options in declaration order (status, block_time_ms, base_fee, features,
 * load_average, country_code, addr), all None but the status.
 */
export async function syncStatus(signer: KeyPairSigner, status: ErStatus): Promise<void> {
  const identity = getAddressEncoder().encode(signer.address);
  const data = [SYNC, 0, ...identity, 1, ER_STATUSES.indexOf(status), 0, 0, 0, 0, 0, 0];
  await send(signer, new Uint8Array(data));
}

/** The identity of validator B, whose record B registered on A at its start. */
export async function validatorBIdentity(): Promise<string> {
  const res = await fetch('http://127.0.0.1:18899', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getIdentity' }),
    signal: AbortSignal.timeout(2000),
  });
  return ((await res.json()) as { result: { identity: string } }).result.identity;
}

/**
 * Waits until the router at `url` lists `identity` in getRoutes: its chain source reads the
 * registry after the start, so a fresh router does not know a registered ER at once.
 */
export async function untilRouted(url: string, identity: string): Promise<void> {
  await waitFor(
    async () => {
      const routes = (await rpcCall(url, 'getRoutes', [])).result as { identity: string }[] | undefined;
      return routes?.some((r) => r.identity === identity) === true;
    },
    `${identity} in the route table of ${url}`,
    { attempts: 300, stepMs: 100 },
  );
}

/** How many accounts the Magic Domain Program holds on A right now (records of any status). */
export async function registryRecordCount(): Promise<number> {
  const accounts = await rpc
    .getProgramAccounts(MDP, {
      encoding: 'base64',
      dataSlice: { offset: 0, length: 0 },
      commitment: 'confirmed',
    })
    .send();
  return accounts.length;
}
