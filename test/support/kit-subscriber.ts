// Runs kit-subscriber.mjs (kit's subscriptions client in a process of its own, in kit's
// development build) and reads what it printed: whether kit lived through what the router
// sent, and what a caller of kit read of a refusal.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import { randomSignature } from './solana.js';

const SUBSCRIBER = new URL('./kit-subscriber.mjs', import.meta.url).pathname;

/** What a kit caller can read of a failure. */
export interface KitReadable {
  readonly name: string;
  readonly message: string;
  readonly solanaError: boolean;
  readonly context?: Record<string, unknown>;
}

/** One line kit-subscriber.mjs prints. */
export interface SubscriberLine {
  readonly step: 'env' | 'first' | 'second';
  readonly nodeEnv?: string | null;
  readonly ok?: boolean;
  readonly error?: KitReadable;
}

export interface KitRun {
  readonly lines: SubscriberLine[];
  readonly exitCode: number | null;
  readonly stderr: string;
}

export interface KitSubscriptions {
  /** The signature subscribed to first; a random one by default. */
  readonly first?: string;
  /** The signature subscribed to second; a random one by default. */
  readonly second?: string;
  /** Runs after the first subscribe is answered, before the second is sent. */
  readonly between?: () => Promise<void> | void;
}

/** The process env without NODE_ENV, whoever runs the tests: kit's default, development build. */
function developmentEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_ENV;
  return env;
}

/** kit subscribes to `first`, `between` runs, then kit subscribes to `second`; its lines and exit code. */
export async function kitSubscribesTwice(
  url: string,
  { first = randomSignature(), second = randomSignature(), between = () => undefined }: KitSubscriptions = {},
): Promise<KitRun> {
  const child = spawn(process.execPath, [SUBSCRIBER, url, first, second], {
    env: developmentEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const lines: SubscriberLine[] = [];
  for await (const text of createInterface({ input: child.stdout })) {
    const line = JSON.parse(text) as SubscriberLine;
    lines.push(line);
    if (line.step === 'first') {
      await between();
      child.stdin.write('go\n');
    }
  }
  const [exitCode] = await exited;
  return { lines, exitCode, stderr };
}

/**
 * kit lived through it in its development build, its first subscribe was answered, and it
 * read the second's refusal as a SolanaError of -32603 whose message says `message`.
 */
export function expectKitReadRefusal(run: KitRun, message: string): KitReadable {
  expect(run.exitCode, `kit's process exited; stderr:\n${run.stderr}`).to.equal(0);
  expect(run.lines[0]).to.deep.equal({ step: 'env', nodeEnv: null });
  expect(run.lines[1]).to.deep.equal({ step: 'first', ok: true });
  const second = run.lines[2];
  expect(second?.ok, JSON.stringify(second)).to.equal(false);
  const error = second!.error!;
  expect(error.solanaError, JSON.stringify(error)).to.equal(true);
  expect(error.context?.__code).to.equal(-32603);
  expect(error.message).to.include(message);
  return error;
}
