/** The pause of a polling loop (the scheduler's, the delivery worker's) that `wake` ends early. */
export interface Sleeper {
  /** Waits `ms`, or less when woken; resolves at once when a wake came while the loop was busy. */
  sleep(ms: number): Promise<void>;
  /** Ends the current sleep, or, when the loop is busy, the next one at once. */
  wake(): void;
  /** Ends the current sleep only (a stopping loop then sees that it must stop). */
  interrupt(): void;
}

export function createSleeper(): Sleeper {
  let wakeUp: (() => void) | null = null;
  let woken = false;
  return {
    sleep(ms) {
      if (woken) {
        woken = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          wakeUp = null;
          resolve();
        }
        wakeUp = done;
      });
    },
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
    interrupt() {
      wakeUp?.();
    },
  };
}

/**
 * Waits for `work` to finish; with `graceMs`, aborts `abort` (reason: an Error with `message`)
 * once that much time has passed, so in-flight work gives up instead of holding a stop forever.
 */
export async function finishWithin(work: () => Promise<unknown>, abort: AbortController, graceMs: number | undefined, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  if (graceMs !== undefined) timer = setTimeout(() => abort.abort(new Error(message)), graceMs);
  try {
    await work();
  } finally {
    clearTimeout(timer);
  }
}
