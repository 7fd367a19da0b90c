// One /metrics scrape covering every worker: a worker asked for /metrics asks the primary,
// which gathers every worker's registry with prom-client's AggregatorRegistry and sums it.
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

export interface Scrape {
  readonly contentType: string;
  readonly body: string;
}

const ASK = 'rollup-router:scrape';
const ANSWER = 'rollup-router:scraped';
/** A scrape waits this long for the primary (which waits up to 5 s for every worker). */
const ANSWER_MS = 6_000;

interface Ask {
  readonly type: typeof ASK;
  readonly id: number;
}

interface Answer {
  readonly type: typeof ANSWER;
  readonly id: number;
  readonly body?: string;
  readonly error?: string;
}

const isAsk = (m: unknown): m is Ask => (m as Ask | null)?.type === ASK;
const isAnswer = (m: unknown): m is Answer => (m as Answer | null)?.type === ANSWER;

/** In the primary: answers the workers' scrapes with the sum of every worker's metrics. */
export function answerScrapes(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isAsk(message)) return;
    const reply = (answer: Omit<Answer, 'type' | 'id'>): void => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer });
    };
    aggregator.clusterMetrics().then(
      (body) => reply({ body }),
      (err: unknown) => reply({ error: (err as Error).message }),
    );
  });
}

/**
 * In a worker: lets the primary read `registry`, and returns the scrape that /metrics
 * answers, the sum over every worker.
 */
export function scrapeThroughPrimary(registry: Registry): () => Promise<Scrape> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one is what makes prom-client answer the primary's requests in this process.
  new AggregatorRegistry();
  const waiting = new Map<number, (answer: Answer) => void>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (isAnswer(message)) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<Scrape>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(
        () => settle({ type: ANSWER, id, error: 'the primary did not answer' }),
        ANSWER_MS,
      );
      const settle = (answer: Answer): void => {
        clearTimeout(timer);
        waiting.delete(id);
        if (answer.body === undefined) reject(new Error(`metrics of the workers: ${answer.error}`));
        else resolve({ contentType: AggregatorRegistry.PROMETHEUS_CONTENT_TYPE, body: answer.body });
      };
      waiting.set(id, settle);
      process.send!({ type: ASK, id } satisfies Ask);
    });
}
