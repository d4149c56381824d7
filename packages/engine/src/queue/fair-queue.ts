/**
 * Claimed work waiting for a slot inside one process, per organization and per key (a target
 * host for checks, a receiver URL for deliveries):
 * - a key has at most `keyConcurrency` items running (politeness towards one host or receiver);
 *   the items behind a busy key wait in its queue, in claim order, and never block other keys;
 * - organizations take turns: the one served least recently (one new to the queue first) goes
 *   next, and within an organization its keys take turns;
 * - while another organization has work that could start, an organization already running
 *   `orgSlots` items waits (its share); alone, it may use every slot.
 */
export interface FairQueue<T> {
  push(orgId: string, key: string, item: T): void;
  /** The next item to start, counted as running until `finish`; null when nothing can start now. */
  next(): { item: T; orgId: string; key: string } | null;
  /** An item that `next` handed out has ended. */
  finish(orgId: string, key: string): void;
  /** Items waiting behind one key. */
  waitingFor(key: string): number;
  /** Waiting items whose key has a free slot (they could start as soon as a slot frees). */
  runnable(): number;
  /** Empties the queue and returns what waited. */
  drain(): T[];
  readonly waiting: number;
  readonly running: number;
}

export interface FairQueueOptions {
  keyConcurrency: number;
  /** Most items one organization runs at once while another organization's work waits. */
  orgSlots: number;
}

/** The slots one organization may hold while others wait: `share` (0..1) of `slots`, at least one. */
export function orgSlots(slots: number, share: number): number {
  return Math.max(1, Math.ceil(slots * Math.min(1, Math.max(0, share))));
}

export function createFairQueue<T>(options: FairQueueOptions): FairQueue<T> {
  const keyCap = Math.max(1, options.keyConcurrency);
  const orgCap = Math.max(1, options.orgSlots);
  const queues = new Map<string, Map<string, T[]>>();
  /** When each queued organization was last served (a dispatch counter). */
  const lastServed = new Map<string, number>();
  let served = 0;
  let waiting = 0;
  let running = 0;
  const keyRunning = new Map<string, number>();
  const keyWaiting = new Map<string, number>();
  const orgRunning = new Map<string, number>();

  const bump = (map: Map<string, number>, key: string, by: number): void => {
    const next = (map.get(key) ?? 0) + by;
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  };
  const saturated = (key: string): boolean => (keyRunning.get(key) ?? 0) >= keyCap;

  /** The least recently served organization with a startable item, optionally only those below their share. */
  function pick(withinShare: boolean): { orgId: string; byKey: Map<string, T[]>; key: string; queue: T[] } | null {
    let found: { orgId: string; byKey: Map<string, T[]>; key: string; queue: T[] } | null = null;
    let foundTurn = Infinity;
    for (const [orgId, byKey] of queues) {
      const turn = lastServed.get(orgId) ?? -1;
      if (turn >= foundTurn) continue;
      if (withinShare && (orgRunning.get(orgId) ?? 0) >= orgCap) continue;
      for (const [key, queue] of byKey) {
        if (saturated(key)) continue;
        found = { orgId, byKey, key, queue };
        foundTurn = turn;
        break;
      }
    }
    return found;
  }

  return {
    get waiting() {
      return waiting;
    },
    get running() {
      return running;
    },
    push(orgId, key, item) {
      let byKey = queues.get(orgId);
      if (byKey === undefined) queues.set(orgId, (byKey = new Map()));
      const queue = byKey.get(key);
      if (queue === undefined) byKey.set(key, [item]);
      else queue.push(item);
      bump(keyWaiting, key, 1);
      waiting++;
    },
    next() {
      const found = pick(true) ?? pick(false);
      if (found === null) return null;
      const { orgId, byKey, key, queue } = found;
      const item = queue.shift()!;
      // the key served goes to the end of its organization's turn
      byKey.delete(key);
      if (queue.length > 0) byKey.set(key, queue);
      if (byKey.size > 0) lastServed.set(orgId, ++served);
      else {
        queues.delete(orgId);
        lastServed.delete(orgId);
      }
      bump(keyWaiting, key, -1);
      waiting--;
      bump(keyRunning, key, 1);
      bump(orgRunning, orgId, 1);
      running++;
      return { item, orgId, key };
    },
    finish(orgId, key) {
      bump(keyRunning, key, -1);
      bump(orgRunning, orgId, -1);
      running--;
    },
    waitingFor: (key) => keyWaiting.get(key) ?? 0,
    runnable() {
      let count = 0;
      for (const [key, queued] of keyWaiting) count += Math.min(queued, Math.max(0, keyCap - (keyRunning.get(key) ?? 0)));
      return count;
    },
    drain() {
      const held: T[] = [];
      for (const byKey of queues.values()) for (const queue of byKey.values()) held.push(...queue);
      queues.clear();
      lastServed.clear();
      keyWaiting.clear();
      waiting = 0;
      return held;
    },
  };
}
