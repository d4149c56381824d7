import { BrowserOptionsSchema, type FetchError } from "@driftwatch/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestFetcher, fetchError, options } from "./helpers.js";
import { isPng, PASSWORD, startStepsSite, type StepsSite } from "./steps-site.js";

let site: StepsSite;
beforeAll(async () => {
  site = await startStepsSite();
});
afterAll(() => site.server.close());

describe("browser steps that fail or are refused", () => {
  // The guard is on: only the test server's own address is exempted.
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], resolveSecret: (name) => (name === "site-password" ? PASSWORD : undefined) });
  afterAll(() => fetcher.close());

  it("fails at each kind of step with the step's index, action, selector and a screenshot", async () => {
    const failing = [
      { action: "click", selector: "#missing" },
      { action: "fill", selector: "#missing", value: "x" },
      { action: "select", selector: "#plan", value: "enterprise" },
      { action: "check", selector: "#missing" },
      { action: "press", selector: "#missing", key: "Enter" },
      { action: "waitForSelector", selector: "#missing" },
      { action: "scroll", selector: "#missing" },
      { action: "goto", url: "http://127.0.0.2:9/private" },
    ] as const;
    for (const step of failing) {
      const error = (await fetchError(
        fetcher.fetch({
          url: `${site.server.url}/login`,
          browserOptions: options({
            waitStrategy: "load",
            steps: [{ action: "scroll" }, { action: "check", selector: "#terms" }, { ...step, timeoutMs: 700 }],
          }),
        }),
      )) as FetchError;
      expect(error.code, step.action).toBe("browser_step_failed");
      expect(error.reason).toBe("browser_step_failed");
      expect(error.step, step.action).toEqual({ index: 2, action: step.action, selector: "selector" in step ? step.selector : null });
      expect(error.message).toContain(`Browser step 2 (${step.action}`);
      expect(isPng(error.screenshot), step.action).toBe(true);
    }
  });

  it("gives each step a whole number of milliseconds: the message names the step's timeout as set", async () => {
    const error = (await fetchError(
      fetcher.fetch({ url: `${site.server.url}/login`, browserOptions: options({ waitStrategy: "load", steps: [{ action: "click", selector: "#missing", timeoutMs: 700 }] }) }),
    )) as FetchError;
    expect(error.code).toBe("browser_step_failed");
    expect(error.message).toContain("Timeout 700ms exceeded");
  });

  it("keeps every step behind the SSRF guard: a goto or a link to a private address fails its step", async () => {
    const gotoPrivate = (await fetchError(
      fetcher.fetch({ url: `${site.server.url}/popups`, browserOptions: options({ waitStrategy: "load", steps: [{ action: "goto", url: "http://10.0.0.1/admin" }] }) }),
    )) as FetchError;
    expect(gotoPrivate.step).toEqual({ index: 0, action: "goto", selector: null });
    expect(gotoPrivate.details[0]?.message).toMatch(/^unsafe_url: /);
    const clickMetadata = (await fetchError(
      fetcher.fetch({
        url: `${site.server.url}/popups`,
        browserOptions: options({ waitStrategy: "load", steps: [{ action: "click", selector: "#metadata" }, { action: "waitForTimeout", ms: 300 }] }),
      }),
    )) as FetchError;
    expect(clickMetadata.code).toBe("browser_step_failed");
    expect(clickMetadata.details[0]?.message).toMatch(/^unsafe_url: /);
  });

  it("guards the redirects of a step's navigation, and ends a redirect loop", async () => {
    const toMetadata = (await fetchError(
      fetcher.fetch({ url: `${site.server.url}/login`, browserOptions: options({ waitStrategy: "load", steps: [{ action: "goto", url: `${site.server.url}/to-metadata` }] }) }),
    )) as FetchError;
    expect(toMetadata.step).toEqual({ index: 0, action: "goto", selector: null });
    expect(toMetadata.details[0]?.message).toMatch(/^unsafe_url: /);
    const before = site.server.paths.filter((p) => p.startsWith("/loop")).length;
    const loop = (await fetchError(
      fetcher.fetch({ url: `${site.server.url}/login`, browserOptions: options({ waitStrategy: "load", steps: [{ action: "goto", url: `${site.server.url}/loop` }] }) }),
    )) as FetchError;
    expect(loop.step).toEqual({ index: 0, action: "goto", selector: null });
    expect(loop.message).toContain("ERR_TOO_MANY_REDIRECTS");
    // Chromium's own cap on a redirect chain (20 hops).
    expect(site.server.paths.filter((p) => p.startsWith("/loop")).length - before).toBeLessThanOrEqual(21);
  });

  it("refuses steps to file:, chrome:, data: and javascript: URLs, and more than 50 steps or too much time", async () => {
    for (const url of ["file:///etc/passwd", "chrome://settings", "data:text/html,hi", "javascript:alert(1)"]) {
      const error = await fetchError(fetcher.fetch({ url: `${site.server.url}/popups`, browserOptions: { steps: [{ action: "goto", url }] } as never }));
      expect(error.code, url).toBe("browser_failed");
      expect(error.message).toBe("Invalid browserOptions");
    }
    expect(BrowserOptionsSchema.safeParse({ steps: Array.from({ length: 51 }, () => ({ action: "scroll" })) }).success).toBe(false);
    expect(BrowserOptionsSchema.safeParse({ steps: Array.from({ length: 5 }, () => ({ action: "waitForTimeout", ms: 30_000 })) }).success).toBe(false);
    expect(BrowserOptionsSchema.safeParse({ steps: [{ action: "click" }] }).success).toBe(false);
    expect(BrowserOptionsSchema.safeParse({ steps: [{ action: "fill", selector: "#a", value: "x", secret: "y" }] }).success).toBe(false);
  });
});
