/**
 * How long the primary waits before replacing a worker that died: a worker that crashes at
 * once, again and again (a bad deploy, a full disk), is replaced ever more slowly rather than
 * in a loop that takes the CPU from the workers still serving; one that had run a while is
 * replaced at once.
 */
export class RestartBackoff {
  private quickDeaths = 0;

  constructor(
    private readonly firstMs = 500,
    private readonly maxMs = 30_000,
    /** A worker that ran this long was not crash-looping: the wait starts over. */
    private readonly stableMs = 30_000,
  ) {}

  /** The wait before replacing a worker that ran for `ranMs`. */
  delayAfter(ranMs: number): number {
    if (ranMs >= this.stableMs) this.quickDeaths = 0;
    const delay = Math.min(this.maxMs, this.firstMs * 2 ** this.quickDeaths);
    this.quickDeaths += 1;
    return delay;
  }
}
