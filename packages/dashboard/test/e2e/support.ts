import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createDriftwatchServer, generateTokenSecret, type DriftwatchServer } from "@driftwatch/server";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { pino } from "pino";
import { beforeEach, expect, onTestFailed } from "vitest";

export const CHROMIUM_PATH = process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Null when Chromium is there; the reason to skip otherwise. Under CI=true a missing Chromium fails. */
export function chromiumSkipReason(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  const reason = `Chromium is not installed at ${CHROMIUM_PATH} (set DRIFTWATCH_CHROMIUM_PATH)`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI must provide it`);
  console.warn(`skipping the dashboard's browser tests: ${reason}`);
  return reason;
}
/** How the repository launches Chromium for tests (see packages/fetcher-browser). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface RunningDriftwatch {
  server: DriftwatchServer;
  baseUrl: string;
  token: string;
  /** A call to the API as the admin token (what a script or the scheduler would do). */
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** The real server on a fresh SQLite file, serving the built dashboard, private networks allowed (local targets). */
export async function startDriftwatch(): Promise<RunningDriftwatch> {
  const dir = mkdtempSync(join(tmpdir(), "dw-dash-e2e-"));
  const token = generateTokenSecret();
  const server = await createDriftwatchServer({
    databaseUrl: `sqlite:${join(dir, "e2e.db")}`,
    host: "127.0.0.1",
    port: 0,
    allowPrivateNetworks: true,
    adminToken: token,
    logger: pino({ level: "silent" }),
  });
  await server.bootstrap();
  await server.listen();
  const { port } = server.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${String(port)}`;
  return {
    server,
    baseUrl,
    token,
    async api(method, path, body) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${String(response.status)} ${text}`);
      return (text === "" ? undefined : JSON.parse(text)) as any;
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

/** A loopback HTTP server answering with `handler`. */
export async function startLocal(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Browsing {
  context: BrowserContext;
  page: Page;
  /** Dialogs (alert, confirm, prompt) the page opened that a test did not expect. */
  dialogs: string[];
  /** Console errors and page errors. */
  errors: string[];
  close(): Promise<void>;
}

/** Chromium with a fresh profile; every dialog is recorded (and accepted, so confirm() buttons work). */
export async function openBrowser(viewport = { width: 1280, height: 900 }, colorScheme: "light" | "dark" = "light"): Promise<Browsing> {
  const profile = mkdtempSync(join(tmpdir(), "dw-dash-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true, viewport, colorScheme });
  const page = context.pages()[0] ?? (await context.newPage());
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.accept();
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    // (a signed-out page load asks nothing that fails: the dw_signed_in cookie says whether to ask GET /api/auth/me)
    errors.push(message.text());
  });
  return {
    context,
    page,
    dialogs,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const axeSource: string = (createRequire(import.meta.url)("axe-core") as { source: string }).source;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; html: string }>;
}

/** axe-core's WCAG 2.x A and AA rules on the current page; returns the violations. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // evaluated through the DevTools protocol: the page's CSP (no inline script, no eval) stays on
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html })) }));
  });
}

/** Opens the sign-in page's second way, the API token form. */
/** Fails with the list when axe finds accessibility violations on the page (`label` names the view). */
export async function expectNoAxeViolations(page: Page, label: string): Promise<void> {
  const violations = await axeViolations(page);
  expect(violations, `${label}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
}

/** In a describe: when a test fails, prints the page's URL, its errors and the start of its text. */
export function printPageOnFailure(browsing: () => Browsing): void {
  beforeEach(() => {
    onTestFailed(async () => {
      const b = browsing();
      const text = await b.page.locator("#root").innerText().catch(() => "");
      console.error(`page ${b.page.url()}\nerrors ${JSON.stringify(b.errors)}\n${text.slice(0, 3000)}`);
    });
  });
}

export async function openTokenForm(page: Page): Promise<void> {
  await page.getByText("Sign in with an API token instead").click();
}

/** Signs in through the sign-in page with a token. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(baseUrl);
  await openTokenForm(page);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();
}

export interface ServeProcess {
  baseUrl: string;
  /** The first-run setup link `driftwatch serve` printed. */
  setupUrl: string;
  output(): string;
  close(): Promise<void>;
}

/**
 * `driftwatch serve` from the built CLI of @driftwatch/server (the dashboard's tests build it
 * first) on a fresh SQLite file, as a person starts it: no admin token, so the first run prints
 * the setup link, read here from its output.
 */
export async function startServe(): Promise<ServeProcess> {
  const dir = mkdtempSync(join(tmpdir(), "dw-dash-serve-"));
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve("@driftwatch/server/package.json")), "dist", "cli.js");
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build @driftwatch/server first (npx turbo run build --filter=@driftwatch/server)`);
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const env = { ...process.env };
  delete env.DRIFTWATCH_ADMIN_TOKEN;
  const child = spawn(
    process.execPath,
    [cli, "serve", "--host", "127.0.0.1", "--port", String(port), "--database", `sqlite:${join(dir, "serve.db")}`, "--allow-private-networks"],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 60_000;
  let setupUrl: string | undefined;
  while (setupUrl === undefined) {
    if (child.exitCode !== null) throw new Error(`driftwatch serve exited with ${String(child.exitCode)}:\n${log}`);
    setupUrl = /Finish setup: (\S+)/.exec(log)?.[1];
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`driftwatch serve printed no setup link in 60 s:\n${log}`);
    }
    if (setupUrl === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl: `http://127.0.0.1:${String(port)}`,
    setupUrl,
    output: () => log,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
