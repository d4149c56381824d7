import { performance } from "node:perf_hooks";
import {
  browserStepBudgetMs,
  DEFAULT_BROWSER_STEP_TIMEOUT_MS,
  FetchError,
  type BrowserStep,
  type FetchScreenshot,
} from "@driftwatch/core";
import { parseFetchUrl } from "@driftwatch/fetcher-http";
import type { Page } from "playwright-core";
import { acceptCookies } from "./consent.js";

/** Resolves the name of a stored secret to its value (undefined: no such secret). */
export type ResolveSecret = (name: string) => string | undefined | Promise<string | undefined>;

/** How one step went (for dry runs). */
export interface StepOutcome {
  index: number;
  action: BrowserStep["action"];
  ok: boolean;
  ms: number;
  error?: string;
}

export interface RunStepsContext {
  page: Page;
  steps: readonly BrowserStep[];
  resolveSecret: ResolveSecret | undefined;
  /** Why the main frame's last navigation was refused or failed (the guard's error), if it was. */
  navigationError(): FetchError | null;
  clearNavigationError(): void;
  /** Runs a Playwright call so that the render's abort signal ends it. */
  guard<T>(promise: Promise<T>): Promise<T>;
  /** A screenshot of the page as it is (for the error of a failed step); null when none can be taken. */
  snapshot(): Promise<FetchScreenshot | null>;
  /** Called after each step (dry runs report them). */
  onStep?: (outcome: StepOutcome) => void;
}

/** The bound on all the steps of a list together, in ms (each step's timeout, or its wait). */
export function stepsBudgetMs(steps: readonly BrowserStep[]): number {
  return steps.reduce((sum, step) => sum + browserStepBudgetMs(step), 0);
}

/** Time a step settles after an action that may navigate: its load event, bounded. */
const SETTLE_MS = 5_000;

/** Replaces every occurrence of the secrets in a message (Playwright may quote what it typed). */
function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[secret]");
  return out;
}

/**
 * Runs the steps in order, each within its timeout and all within the sum of their budgets. The
 * first failure throws `browser_step_failed` with the step (index, action, selector) and a
 * screenshot of the page at that moment. Navigations go through the render's routing (so every
 * one passes the SSRF guard); a navigation the guard refuses fails its step.
 */
export async function runSteps(context: RunStepsContext): Promise<void> {
  const { page, steps } = context;
  const secrets: string[] = [];
  const until = performance.now() + stepsBudgetMs(steps);
  for (const [index, step] of steps.entries()) {
    const started = performance.now();
    // Whole milliseconds: Playwright's timeout message quotes the number as given.
    const timeout = Math.max(100, Math.min(step.timeoutMs ?? DEFAULT_BROWSER_STEP_TIMEOUT_MS, Math.round(until - performance.now())));
    context.clearNavigationError();
    try {
      await context.guard(runStep(page, step, timeout, context.resolveSecret, secrets));
      const refused = context.navigationError();
      if (refused !== null) throw refused;
      context.onStep?.({ index, action: step.action, ok: true, ms: Math.round(performance.now() - started) });
    } catch (error) {
      const navigation = context.navigationError();
      const cause = navigation ?? error;
      const raw = cause instanceof Error ? (cause.message.split("\n")[0] ?? "") : String(cause);
      const message = redact(raw, secrets);
      context.onStep?.({ index, action: step.action, ok: false, ms: Math.round(performance.now() - started), error: message });
      const screenshot = await context.snapshot();
      const where = step.selector === undefined ? "" : ` on ${step.selector}`;
      const code = cause instanceof FetchError ? cause.code : error instanceof Error && error.name === "TimeoutError" ? "timeout" : "failed";
      throw new FetchError("browser_step_failed", `Browser step ${String(index)} (${step.action}${where}) failed: ${message}`, {
        step: { index, action: step.action, selector: step.selector ?? null },
        ...(screenshot === null ? {} : { screenshot }),
        details: [{ path: `browserOptions.steps[${String(index)}]`, message: `${code}: ${message}` }],
      });
    }
  }
}

async function valueOf(step: BrowserStep, resolveSecret: ResolveSecret | undefined, secrets: string[]): Promise<string> {
  if (step.secret === undefined) return step.value ?? "";
  if (resolveSecret === undefined) throw new FetchError("browser_failed", `secret ${JSON.stringify(step.secret)} cannot be resolved: no secret store is configured`);
  const value = await resolveSecret(step.secret);
  if (value === undefined) throw new FetchError("browser_failed", `unknown secret ${JSON.stringify(step.secret)}`);
  secrets.push(value);
  return value;
}

async function runStep(page: Page, step: BrowserStep, timeout: number, resolveSecret: ResolveSecret | undefined, secrets: string[]): Promise<void> {
  const selector = step.selector ?? "";
  switch (step.action) {
    case "goto": {
      // The schema allows http and https only; checked again here (file:, chrome:, data:, javascript: are refused).
      const url = parseFetchUrl(step.url ?? "");
      await page.goto(url.href, { waitUntil: "load", timeout });
      return;
    }
    case "click":
      await page.locator(selector).first().click({ timeout });
      break;
    case "fill":
      await page.locator(selector).first().fill(await valueOf(step, resolveSecret, secrets), { timeout });
      return;
    case "select":
      await page.locator(selector).first().selectOption(await valueOf(step, resolveSecret, secrets), { timeout });
      break;
    case "check":
      await page.locator(selector).first().check({ timeout });
      break;
    case "press":
      if (step.selector === undefined) await page.locator(":root").press(step.key ?? "", { timeout });
      else await page.locator(selector).first().press(step.key ?? "", { timeout });
      break;
    case "waitForSelector":
      await page.locator(selector).first().waitFor({ state: "visible", timeout });
      return;
    case "waitForTimeout":
      await page.waitForTimeout(step.ms ?? 0);
      return;
    case "scroll":
      if (step.selector === undefined) await page.evaluate("window.scrollBy(0, window.innerHeight)");
      else await page.locator(selector).first().scrollIntoViewIfNeeded({ timeout });
      return;
    case "acceptCookies":
      await acceptCookies(page, timeout);
      break;
  }
  // The action may have started a navigation (a submit, a link): let it load, bounded.
  await page.waitForLoadState("load", { timeout: Math.min(SETTLE_MS, timeout) }).catch(() => undefined);
}
