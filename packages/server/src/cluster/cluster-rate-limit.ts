// Rate budgets without Redis under `workers`: one budget for the whole service, as with one
// process, counted in the primary (rate-limiter-flexible's cluster limiter: each charge is a
// message to the primary and back). Dividing the points among the workers instead would refuse
// a client early whenever its calls do not spread evenly (a keep-alive connection stays on
// one worker).
import type { RateBudget } from '@rollup-router/core';
import {
  RateLimiterCluster,
  RateLimiterClusterMaster,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

/** Makes the store of one budget (core's rateLimiterFor), one that can also insure Redis's. */
export type BudgetStore = (budget: RateBudget, keyPrefix: string) => RateLimiterAbstract;

/** A charge the primary has not answered in this time is allowed (and logged) by core, as with a Redis that is down. */
const PRIMARY_ANSWER_MS = 1_000;

/** In the primary: keeps the budgets the workers charge. */
export function keepBudgetsForWorkers(): void {
  new RateLimiterClusterMaster();
}

/** In a worker: budgets kept by the primary. */
export const budgetsInPrimary: BudgetStore = ({ points, durationSeconds }, keyPrefix) =>
  new RateLimiterCluster({ points, duration: durationSeconds, keyPrefix, timeoutMs: PRIMARY_ANSWER_MS });
