// Popups racing the end of their render (issue 12, CRITICAL): a page opens popups in bursts,
// each with a request on its way, until its render ends, normally, by the caller's abort at
// varied moments or by the deadline. Requests of a page that closes are released by Chromium to
// its own network stack (Playwright stalls their routes, then the page's session detaches), and
// Playwright lets a request of a frame it does not know yet through unrouted: none of them may
// reach the site, over many renders.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestFetcher, options } from "../helpers.js";
import { startHostileSite, type HostileSite } from "./pages.js";

/** Renders per kind of ending; each ends with popups opening. */
const ROUNDS = 8;

let hostile: HostileSite;
beforeAll(async () => {
  hostile = await startHostileSite();
});
afterAll(async () => {
  await hostile.close();
});

describe("popups opened while the render closes", () => {
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], lookup: () => Promise.resolve([{ address: "127.0.0.2", family: 4 }]) });
  afterAll(() => fetcher.close());

  async function render(input: Parameters<typeof options>[0], abortAfterMs?: number): Promise<string> {
    const controller = new AbortController();
    const timer = abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(new Error("caller gave up")), abortAfterMs);
    try {
      const res = await fetcher.fetch({ url: `${hostile.site.url}/popup-storm`, browserOptions: options(input), signal: controller.signal });
      return res.body.includes(`<p id="main">main</p>`) ? "rendered" : "rendered without the main text";
    } catch (error) {
      if (controller.signal.aborted && error === controller.signal.reason) return "aborted";
      return `code ${String((error as { code?: unknown }).code)}`;
    } finally {
      clearTimeout(timer);
    }
  }

  it("get no request out: not while the render runs, not while it closes, not after", async () => {
    const endings: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      endings.push(
        ...(await Promise.all([
          render({ waitStrategy: "load", extraWaitMs: 100 + 50 * (round % 4) }),
          render({ waitStrategy: "load", extraWaitMs: 5000 }, 150 + 60 * round),
          render({ waitStrategy: "networkidle", timeoutMs: 1000 }),
        ])),
      );
    }
    // Every render ended as a result, the caller's abort or a FetchError (the deadline).
    for (const ending of endings) expect(ending).toMatch(/^rendered$|^aborted$|^code timeout$/);
    expect(endings.filter((e) => e === "rendered").length).toBeGreaterThanOrEqual(ROUNDS);
    // Late events of closed pages and contexts get their chance to go out.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(hostile.site.paths.filter((p) => p.startsWith("/popup-target"))).toEqual([]);
    expect(hostile.internal.connections).toBe(0);
  }, 300_000);
});
