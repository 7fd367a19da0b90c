import type { RedisConnectOptions } from '@rollup-router/signature-statuses';
import type { Config } from '../generated/schemas.js';

type Filled<T> = Required<NonNullable<T>>;
type Statuses = NonNullable<Config['statuses']>;
type Metrics = NonNullable<Config['metrics']>;

/**
 * The configuration after validation: every key with a schema default is present.
 * The JSON shape is schemas/config.schema.json (type `Config`); this only states
 * which members the defaults guarantee.
 */
export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  readonly logLevel: NonNullable<Config['logLevel']>;
  readonly endpoints: Filled<Config['endpoints']>;
  readonly routes: NonNullable<Config['routes']>;
  readonly statuses: Omit<Statuses, 'store'> & { readonly store: false | { readonly path: string } };
  readonly statusesFromRoutes: boolean;
  /** Absent: nothing is shared, no Redis is needed. */
  readonly redis?: RedisConnectOptions;
  readonly plugins: NonNullable<Config['plugins']>;
  readonly limits: Filled<Config['limits']>;
  readonly cors: NonNullable<Config['cors']>;
  readonly apiKeys: string[];
  readonly rateLimit: NonNullable<Config['rateLimit']>;
  readonly validateResults: boolean;
  readonly discovery: boolean;
  readonly info: Filled<Config['info']>;
  readonly readiness: Filled<Config['readiness']>;
  readonly metrics: Filled<Pick<Metrics, 'enabled' | 'processMetrics'>> &
    Omit<Metrics, 'enabled' | 'processMetrics'>;
  readonly shutdown: Filled<Config['shutdown']>;
}
