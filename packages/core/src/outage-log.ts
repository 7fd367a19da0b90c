/**
 * When an outage is logged: its first failure at once, then reminders at the 2nd, 4th,
 * 8th... failure in a row (the retries between them back off, so the reminders thin out
 * in time), never once per retry; and its end once, with how long it lasted.
 */
export class OutageLog {
  private failures = 0;
  private startedAt: number | undefined;

  /** Counts a failure; whether to log it. */
  failed(): boolean {
    this.failures += 1;
    this.startedAt ??= Date.now();
    return (this.failures & (this.failures - 1)) === 0;
  }

  /** Failures in a row so far (0: no outage). */
  get failuresInARow(): number {
    return this.failures;
  }

  /** When the outage began (ms since the epoch), if one is under way. */
  get since(): number | undefined {
    return this.startedAt;
  }

  /** A success: how long the outage it ends lasted (ms), or undefined when there was none. */
  ended(): number | undefined {
    const lasted = this.startedAt === undefined ? undefined : Date.now() - this.startedAt;
    this.failures = 0;
    this.startedAt = undefined;
    return lasted;
  }
}
