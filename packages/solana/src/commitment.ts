/** How far a node has confirmed something, from least to most. */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Each commitment's place in that order: a higher rank is further along. */
export const COMMITMENT_RANK: Readonly<Record<Commitment, number>> = {
  processed: 1,
  confirmed: 2,
  finalized: 3,
};
