// Render caps and error pages (issue 12): a page allocating ~1 GB in JS ends as a check error
// without growing this process; a DOM over the HTML cap is refused with too_large; a navigation
// refused by the guard or ending on Chromium's error page is an error, never a 200 snapshot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestFetcher, fetchError, options } from "../helpers.js";
import { startHostileSite, type HostileSite } from "./pages.js";

let hostile: HostileSite;
beforeAll(async () => {
  hostile = await startHostileSite();
});
afterAll(async () => {
  await hostile.close();
});

describe("render caps", () => {
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], maxHeapMb: 128, maxHtmlBytes: 64 * 1024 });
  afterAll(() => fetcher.close());

  it("ends a page that allocates ~1 GB of JS heap as browser_failed, this process's memory unmoved", async () => {
    const before = process.memoryUsage().rss;
    const error = await fetchError(fetcher.fetch({ url: `${hostile.site.url}/allocate`, browserOptions: options({ waitStrategy: "load", timeoutMs: 30_000 }) }));
    const after = process.memoryUsage().rss;
    expect(error.code).toBe("browser_failed");
    expect(error.message).toContain("crashed");
    console.info(`allocating page: ${error.message}; rss before ${String(before >> 20)} MB, after ${String(after >> 20)} MB`);
    // The heap lived and died in the renderer: this process grew by far less than the page tried.
    expect(after - before).toBeLessThan(100 * 1024 * 1024);
    // The browser survives its renderer: the next render works.
    const res = await fetcher.fetch({ url: `${hostile.site.url}/big-dom?n=100`, browserOptions: options({ waitStrategy: "load" }) });
    expect(res.status).toBe(200);
  });

  it("refuses a rendered DOM over maxHtmlBytes with too_large, and returns one under it", async () => {
    const error = await fetchError(fetcher.fetch({ url: `${hostile.site.url}/big-dom?n=${String(200 * 1024)}`, browserOptions: options({ waitStrategy: "load" }) }));
    expect(error.code).toBe("too_large");
    const res = await fetcher.fetch({ url: `${hostile.site.url}/big-dom?n=${String(60 * 1024)}`, browserOptions: options({ waitStrategy: "load" }) });
    expect(res.size).toBeGreaterThan(60 * 1024);
    expect(res.size).toBeLessThanOrEqual(64 * 1024);
  });

  it("refuses invalid caps", () => {
    expect(() => createTestFetcher({ maxHeapMb: 1 })).toThrow(/maxHeapMb/);
    expect(() => createTestFetcher({ maxHtmlBytes: 0 })).toThrow(/maxHtmlBytes/);
  });
});

describe("error pages are errors", () => {
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], lookup: () => Promise.resolve([{ address: "127.0.0.2", family: 4 }]) });
  afterAll(() => fetcher.close());

  it("reports a scripted navigation into private space as unsafe_url", async () => {
    const error = await fetchError(fetcher.fetch({ url: `${hostile.site.url}/navigate-inward`, browserOptions: options({ waitStrategy: "load", extraWaitMs: 600 }) }));
    expect(error.code).toBe("unsafe_url");
    expect(hostile.internal.connections).toBe(0);
  });

  it("reports a scripted navigation to a dead port as an error, not Chromium's error page", async () => {
    const error = await fetchError(fetcher.fetch({ url: `${hostile.site.url}/navigate-dead`, browserOptions: options({ waitStrategy: "load", extraWaitMs: 600 }) }));
    expect(error.code).toBe("connection_failed");
  });
});
