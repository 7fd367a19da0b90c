/**
 * Deadlines, on one timer per duration. Every call has a deadline and every upstream
 * request a timeout: a setTimeout and a clearTimeout each. One call at a time (a client
 * waiting on each answer), Node made and dropped a timer list for each, and the two timers
 * cost a forwarded sendTransaction ~33 µs of CPU on Node 20 (--cpu-prof). Here a deadline
 * is a link in a list kept in deadline order, which for one duration is mostly the order of
 * arrival; one timer, armed for the first, stays armed when that one is cancelled: it fires
 * at most once per duration for nothing, and is then armed for the new first. A queue with
 * no deadline in it never keeps the process running.
 */
export interface Deadline {
  /** The deadline no longer matters: its callback will not run. */
  cancel(): void;
}

class Link implements Deadline {
  prev: Link | undefined = undefined;
  next: Link | undefined = undefined;

  constructor(
    private readonly queue: DeadlineQueue,
    readonly at: number,
    public expire: (() => void) | undefined,
  ) {}

  cancel(): void {
    if (this.expire === undefined) return;
    this.expire = undefined;
    this.queue.unlink(this);
  }
}

class DeadlineQueue {
  private first: Link | undefined;
  private last: Link | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(private readonly keepsAlive: boolean) {}

  add(at: number, expire: () => void): Deadline {
    const link = new Link(this, at, expire);
    // From the end: a deadline counted from an earlier start (a call's, after its guards)
    // goes before the later ones.
    let before = this.last;
    while (before !== undefined && before.at > at) before = before.prev;
    link.prev = before;
    link.next = before === undefined ? this.first : before.next;
    if (link.prev) link.prev.next = link;
    else this.first = link;
    if (link.next) link.next.prev = link;
    else this.last = link;
    if (at < this.timerAt) this.arm(at - performance.now());
    else if (this.keepsAlive) this.timer?.ref();
    return link;
  }

  unlink(link: Link): void {
    if (link.prev) link.prev.next = link.next;
    else this.first = link.next;
    if (link.next) link.next.prev = link.prev;
    else this.last = link.prev;
    link.prev = link.next = undefined;
    // The timer left armed holds no deadline now: it must not keep the process running.
    if (this.first === undefined) this.timer?.unref();
  }

  private arm(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    // setTimeout takes at most 2^31-1 ms (more is 1 ms): a longer wait is armed again when that passes.
    const wait = Math.min(Math.max(0, Math.ceil(ms)), MAX_TIMER_MS);
    this.timerAt = performance.now() + wait;
    this.timer = setTimeout(this.fire, wait);
    if (!this.keepsAlive) this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let link = this.first;
    // Node may fire a timer a fraction of a millisecond before performance.now() says it
    // is due: such a link waits for the next firing.
    while (link !== undefined && link.at <= now) {
      const { expire } = link;
      link.expire = undefined;
      this.unlink(link);
      expire?.();
      link = this.first;
    }
    if (link !== undefined && this.timer === undefined) this.arm(link.at - now);
  };
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Beyond this many durations in use, a deadline is a timer of its own (durations come from configuration). */
const MAX_QUEUES = 64;
const queues = new Map<number, DeadlineQueue>();

/**
 * Runs `expire` `ms` milliseconds after `from` (a performance.now() reading; default now)
 * unless cancelled first. `keepsAlive: false` (an unref'd timer) when the deadline alone
 * should not keep the process running.
 */
export function deadlineIn(
  ms: number,
  expire: () => void,
  { from = performance.now(), keepsAlive = true }: { from?: number; keepsAlive?: boolean } = {},
): Deadline {
  const key = keepsAlive ? ms : -1 - ms;
  let queue = queues.get(key);
  if (queue === undefined) {
    if (queues.size >= MAX_QUEUES || !(ms >= 0 && Number.isFinite(ms)))
      return timerOfItsOwn(from + ms - performance.now(), expire, keepsAlive);
    queues.set(key, (queue = new DeadlineQueue(keepsAlive)));
  }
  return queue.add(from + ms, expire);
}

function timerOfItsOwn(ms: number, expire: () => void, keepsAlive: boolean): Deadline {
  const timer = setTimeout(expire, Math.max(0, ms));
  if (!keepsAlive) timer.unref();
  return { cancel: () => clearTimeout(timer) };
}
