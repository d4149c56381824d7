import { describe, expect, it } from "vitest";
import { createSleeper } from "../src/background-loop.js";

describe("createSleeper", () => {
  it("a wake while the loop is busy ends the next sleep at once; interrupt only ends a current sleep", async () => {
    const sleeper = createSleeper();
    sleeper.wake();
    let done = false;
    await sleeper.sleep(60_000).then(() => (done = true));
    expect(done).toBe(true);

    sleeper.interrupt(); // nothing sleeping: no effect on the next sleep
    let ended = false;
    const pending = sleeper.sleep(60_000).then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    sleeper.interrupt();
    await pending;
    expect(ended).toBe(true);
  });
});
