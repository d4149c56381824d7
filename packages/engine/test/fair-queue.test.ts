import { describe, expect, it } from "vitest";
import { FairQueue, MeanDurations } from "../src/fair-queue.js";
import { createSleeper } from "../src/background-loop.js";

describe("FairQueue (the scheduler's and the delivery service's waiting work)", () => {
  it("organizations take turns, whatever order their work was claimed in", () => {
    const queue = new FairQueue<string>(10);
    for (const item of ["a1", "a2", "a3"]) queue.push("org_a", "host-a", item);
    queue.push("org_b", "host-b", "b1");
    queue.push("org_c", "host-c", "c1");
    const order: string[] = [];
    for (let next = queue.shift(); next !== null; next = queue.shift()) order.push(next.item);
    expect(order).toEqual(["a1", "b1", "c1", "a2", "a3"]);
    expect(queue.size).toBe(0);
  });

  it("within an organization its keys take turns", () => {
    const queue = new FairQueue<string>(10);
    for (const item of ["x1", "x2"]) queue.push("org_a", "x", item);
    for (const item of ["y1", "y2"]) queue.push("org_a", "y", item);
    const order: string[] = [];
    for (let next = queue.shift(); next !== null; next = queue.shift()) order.push(next.item);
    expect(order).toEqual(["x1", "y1", "x2", "y2"]);
  });

  it("a key with every slot running is skipped until one is given back, and does not count as runnable", () => {
    const queue = new FairQueue<string>(1);
    queue.push("org_a", "slow", "s1");
    queue.push("org_a", "slow", "s2");
    queue.push("org_b", "fast", "f1");
    const first = queue.shift()!;
    expect(first).toEqual({ item: "s1", key: "slow" });
    queue.started(first.key);
    expect(queue.saturated("slow")).toBe(true);
    expect(queue.runnable()).toBe(1);
    expect(queue.shift()).toEqual({ item: "f1", key: "fast" });
    expect(queue.shift()).toBeNull();
    expect(queue.waitingFor("slow")).toBe(1);
    queue.finished("slow");
    expect(queue.runnable()).toBe(1);
    expect(queue.shift()).toEqual({ item: "s2", key: "slow" });
  });

  it("drain hands back everything that waited and forgets the turns", () => {
    const queue = new FairQueue<string>(2);
    queue.push("org_a", "h", "a1");
    queue.push("org_b", "h", "b1");
    expect(queue.drain().sort()).toEqual(["a1", "b1"]);
    expect(queue.size).toBe(0);
    expect(queue.waitingFor("h")).toBe(0);
    expect(queue.shift()).toBeNull();
  });
});

describe("MeanDurations", () => {
  it("keeps a moving average per key", () => {
    const means = new MeanDurations();
    expect(means.get("h")).toBeUndefined();
    means.observe("h", 100);
    means.observe("h", 200);
    expect(means.get("h")).toBeCloseTo(120);
  });
});

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
