import { MAX_DURATION_STATS } from "./limits.js";

/**
 * Claimed work waiting for a slot, in per-organization, per-key queues (the key is the target
 * host of a check or the endpoint of a delivery), each in claim order. The organization served
 * least recently goes next (one new to the queue first); within an organization its keys take
 * turns (a served key moves to the end of its Map); a key has at most `perKey` items running.
 * The caller says when an item starts and finishes (`started`, `finished`).
 */
export class FairQueue<T> {
  readonly #queues = new Map<string, Map<string, T[]>>();
  /** When each queued organization was last served (a dispatch counter). */
  readonly #lastServed = new Map<string, number>();
  #served = 0;
  readonly #running = new Map<string, number>();
  readonly #waiting = new Map<string, number>();
  #size = 0;
  readonly #perKey: number;

  constructor(perKey: number) {
    this.#perKey = perKey;
  }

  /** Items waiting. */
  get size(): number {
    return this.#size;
  }

  /** Items of `key` waiting. */
  waitingFor(key: string): number {
    return this.#waiting.get(key) ?? 0;
  }

  /** Whether `key` has all its slots running. */
  saturated(key: string): boolean {
    return (this.#running.get(key) ?? 0) >= this.#perKey;
  }

  /** Waiting items that could start now (their key has a free slot). */
  runnable(): number {
    let count = 0;
    for (const [key, queued] of this.#waiting) count += Math.min(queued, Math.max(0, this.#perKey - (this.#running.get(key) ?? 0)));
    return count;
  }

  push(orgId: string, key: string, item: T): void {
    let byKey = this.#queues.get(orgId);
    if (byKey === undefined) this.#queues.set(orgId, (byKey = new Map()));
    const queue = byKey.get(key);
    if (queue === undefined) byKey.set(key, [item]);
    else queue.push(item);
    bump(this.#waiting, key, 1);
    this.#size++;
  }

  /** The next item to start: the least recently served organization's next key with a free slot. */
  shift(): { item: T; key: string } | null {
    let pick: { orgId: string; byKey: Map<string, T[]>; key: string; queue: T[] } | null = null;
    let pickTurn = Infinity;
    for (const [orgId, byKey] of this.#queues) {
      const turn = this.#lastServed.get(orgId) ?? -1;
      if (turn >= pickTurn) continue;
      for (const [key, queue] of byKey) {
        if (this.saturated(key)) continue;
        pick = { orgId, byKey, key, queue };
        pickTurn = turn;
        break;
      }
    }
    if (pick === null) return null;
    const { orgId, byKey, key, queue } = pick;
    const item = queue.shift()!;
    byKey.delete(key);
    if (queue.length > 0) byKey.set(key, queue);
    if (byKey.size > 0) this.#lastServed.set(orgId, ++this.#served);
    else {
      this.#queues.delete(orgId);
      this.#lastServed.delete(orgId);
    }
    bump(this.#waiting, key, -1);
    this.#size--;
    return { item, key };
  }

  /** An item of `key` took a slot. */
  started(key: string): void {
    bump(this.#running, key, 1);
  }

  /** An item of `key` gave its slot back. */
  finished(key: string): void {
    bump(this.#running, key, -1);
  }

  /** Empties the queues; returns what waited. */
  drain(): T[] {
    const held: T[] = [];
    for (const byKey of this.#queues.values()) for (const queue of byKey.values()) held.push(...queue);
    this.#queues.clear();
    this.#lastServed.clear();
    this.#waiting.clear();
    this.#size = 0;
    return held;
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}

/** Mean duration per key (a moving average), for at most `MAX_DURATION_STATS` keys (the least recently observed go first). */
export class MeanDurations {
  readonly #means = new Map<string, number>();

  get(key: string): number | undefined {
    return this.#means.get(key);
  }

  observe(key: string, ms: number): void {
    const mean = this.#means.get(key);
    this.#means.delete(key);
    if (this.#means.size >= MAX_DURATION_STATS) this.#means.delete(this.#means.keys().next().value!);
    this.#means.set(key, mean === undefined ? ms : mean * 0.8 + ms * 0.2);
  }
}
