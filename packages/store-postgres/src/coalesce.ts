/** One call's outcome within a batch. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface CoalescerOptions {
  /** Batches run at once; calls made meanwhile wait and go out together in the next one. */
  concurrency: number;
  /** Calls per batch at most. */
  maxBatch: number;
}

/**
 * Group commit for calls that one statement can serve for many: calls made in the same turn of
 * the event loop, and calls made while `concurrency` batches are already running, go to `run`
 * together. An idle store adds no wait (a lone call goes out at the end of its turn); a busy one
 * sends one statement for many calls instead of one each. `run` settles each call on its own, in
 * the order given; if it throws, every call of the batch fails with that error.
 */
export class Coalescer<I, O> {
  readonly #run: (items: readonly I[]) => Promise<Settled<O>[]>;
  readonly #options: CoalescerOptions;
  #pending: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(run: (items: readonly I[]) => Promise<Settled<O>[]>, options: CoalescerOptions) {
    this.#run = run;
    this.#options = { concurrency: Math.max(1, Math.floor(options.concurrency)), maxBatch: Math.max(1, Math.floor(options.maxBatch)) };
  }

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => {
          this.#scheduled = false;
          this.#drain();
        });
      }
    });
  }

  #drain(): void {
    while (this.#inFlight < this.#options.concurrency && this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#options.maxBatch);
      this.#inFlight++;
      let run: Promise<Settled<O>[]>;
      try {
        run = this.#run(batch.map((call) => call.item));
      } catch (error) {
        run = Promise.reject(error);
      }
      run
        .then(
          (results) => {
            batch.forEach((call, i) => {
              const result = results[i];
              if (result === undefined) call.reject(new Error("A batched call got no result."));
              else if (result.ok) call.resolve(result.value);
              else call.reject(result.error);
            });
          },
          (error: unknown) => {
            for (const call of batch) call.reject(error);
          },
        )
        .finally(() => {
          this.#inFlight--;
          this.#drain();
        });
    }
  }
}

/** Runs `work` and settles its outcome. */
export async function settle<O>(work: () => Promise<O>): Promise<Settled<O>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error };
  }
}
