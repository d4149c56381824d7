/** Bounds how many renders run at once; waiters are served in arrival order. */
export interface Semaphore {
  /** Resolves when a slot is free; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
  release(): void;
  readonly active: number;
  readonly waiting: number;
}

export function createSemaphore(limit: number): Semaphore {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${String(limit)}`);
  let active = 0;
  const queue: Array<() => void> = [];
  return {
    get active(): number {
      return active;
    },
    get waiting(): number {
      return queue.length;
    },
    acquire(signal?: AbortSignal): Promise<void> {
      if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
      if (active < limit) {
        active += 1;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const grant = (): void => {
          signal?.removeEventListener("abort", onAbort);
          active += 1;
          resolve();
        };
        const onAbort = (): void => {
          const index = queue.indexOf(grant);
          if (index !== -1) queue.splice(index, 1);
          reject(signal?.reason as Error);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(grant);
      });
    },
    release(): void {
      active -= 1;
      queue.shift()?.();
    },
  };
}
