import type { FetchError } from "@driftwatch/core";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StepOutcome } from "../src/index.js";
import { createTestFetcher, fetchError, options } from "./helpers.js";
import { forms, isPng, PASSWORD, startStepsSite, type StepsSite } from "./steps-site.js";

let site: StepsSite;
beforeAll(async () => {
  site = await startStepsSite();
});
afterAll(() => site.server.close());

describe("browser steps", () => {
  // The guard is on: only the test server's own address is exempted.
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], resolveSecret: (name) => (name === "site-password" ? PASSWORD : undefined) });
  afterAll(() => fetcher.close());

  it("logs in with a secret and captures the content behind the session cookie", async () => {
    const outcomes: StepOutcome[] = [];
    const response = await fetcher.fetchWith(
      {
        url: `${site.server.url}/login`,
        browserOptions: options({
          waitStrategy: "load",
          screenshot: "viewport",
          steps: [
            { action: "fill", selector: "#user", value: "alice" },
            { action: "fill", selector: "#password", secret: "site-password" },
            { action: "click", selector: "button[type=submit]" },
            { action: "waitForSelector", selector: "#balance" },
          ],
        }),
      },
      { onStep: (outcome) => outcomes.push(outcome) },
    );
    expect(response.body).toContain("Balance: 42 EUR");
    expect(response.finalUrl).toBe(`${site.server.url}/account`);
    expect(new URLSearchParams(site.lastLoginBody()).get("password")).toBe(PASSWORD);
    expect(outcomes.map((o) => [o.index, o.action, o.ok])).toEqual([
      [0, "fill", true],
      [1, "fill", true],
      [2, "click", true],
      [3, "waitForSelector", true],
    ]);
    expect(isPng(response.screenshot)).toBe(true);
    // Without the steps, the account page is not reachable.
    const anonymous = await fetcher.fetch({ url: `${site.server.url}/account`, browserOptions: options({ waitStrategy: "load" }) });
    expect(anonymous.body).not.toContain("Balance");
  });

  it("fails a step naming an unknown secret, without the value of any secret in the error", async () => {
    const error = (await fetchError(
      fetcher.fetch({
        url: `${site.server.url}/login`,
        browserOptions: options({
          waitStrategy: "load",
          steps: [
            { action: "fill", selector: "#password", secret: "site-password" },
            { action: "fill", selector: "#user", secret: "nope" },
          ],
        }),
      }),
    )) as FetchError;
    expect(error.code).toBe("browser_step_failed");
    expect(error.step).toEqual({ index: 1, action: "fill", selector: "#user" });
    expect(error.message).toContain('unknown secret "nope"');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(PASSWORD);
    // A step with a secret that fails in Playwright: the message never quotes the value.
    const typing = (await fetchError(
      fetcher.fetch({
        url: `${site.server.url}/login`,
        browserOptions: options({ waitStrategy: "load", steps: [{ action: "select", selector: "#plan", secret: "site-password", timeoutMs: 500 }] }),
      }),
    )) as FetchError;
    expect(typing.step).toEqual({ index: 0, action: "select", selector: "#plan" });
    expect(JSON.stringify({ message: typing.message, details: typing.details })).not.toContain(PASSWORD);
  });

  it("blocks popups, downloads and file: links opened during steps", async () => {
    const before = site.server.paths.length;
    const response = await fetcher.fetch({
      url: `${site.server.url}/popups`,
      browserOptions: options({
        waitStrategy: "load",
        steps: [
          { action: "click", selector: "#open" },
          { action: "click", selector: "#dl" },
          { action: "waitForTimeout", ms: 500 },
        ],
      }),
    });
    expect(response.finalUrl).toBe(`${site.server.url}/popups`);
    expect(load(response.body)("#content").text()).toBe("Popup page");
    expect(response.body).not.toContain("root:");
    const requested = site.server.paths.slice(before);
    expect(requested).not.toContain("/popup-target");
    // A link to a file: URL goes nowhere (Chromium refuses it from a web page; the route never sees it).
    const local = await fetcher.fetch({
      url: `${site.server.url}/popups`,
      browserOptions: options({ waitStrategy: "load", steps: [{ action: "click", selector: "#local", timeoutMs: 2000 }, { action: "waitForTimeout", ms: 300 }] }),
    });
    expect(local.finalUrl).toBe(`${site.server.url}/popups`);
    expect(load(local.body)("#content").text()).toBe("Popup page");
    expect(local.body).not.toContain("root:");
  });

  it("inspects a page: unique selectors, boxes on the full-page screenshot, texts", async () => {
    const result = await fetcher.inspect(`${site.server.url}/login`, { waitStrategy: "load", viewport: { width: 360, height: 640 } });
    expect(result.width).toBe(360);
    expect(result.height).toBeGreaterThan(3000);
    expect(isPng(result.screenshot)).toBe(true);
    const $ = load(forms);
    const bySelector = new Map(result.elements.map((e) => [e.selector, e]));
    expect(bySelector.get("#hint")?.text).toBe("Long page below");
    expect(bySelector.get("#bottom")!.box.y).toBeGreaterThan(3000);
    expect(result.elements.find((e) => e.text === "Sign in" && e.selector.endsWith("h1:nth-of-type(1)"))?.selector).toBe("#main > h1:nth-of-type(1)");
    for (const element of result.elements) {
      expect($(element.selector).length, element.selector).toBe(1);
      expect(element.box.x + element.box.width).toBeLessThanOrEqual(result.width + 1);
      expect(element.box.y + element.box.height).toBeLessThanOrEqual(result.height + 1);
    }
  });
});
