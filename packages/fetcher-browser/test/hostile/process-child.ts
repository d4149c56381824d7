// Child process of the process-level test: renders every hostile page with a real browser
// fetcher and reports, as one JSON line on stdout, what each render ended as and whether
// anything escaped as an unhandled rejection or an uncaught exception. Never run by vitest.
import fs from "node:fs";
import { BrowserOptionsSchema, type BrowserOptionsInput } from "@driftwatch/core";
import { createBrowserFetcher } from "../../src/index.js";
import { startHostileSite } from "./pages.js";

const [marker = "", pidFile = ""] = process.argv.slice(2);
const escaped: string[] = [];
process.on("unhandledRejection", (reason) => escaped.push(`unhandledRejection: ${String((reason as Error | undefined)?.stack ?? reason)}`));
process.on("uncaughtException", (error) => escaped.push(`uncaughtException: ${String(error.stack ?? error)}`));

const hostile = await startHostileSite();
const fetcher = createBrowserFetcher({
  allowAddresses: ["127.0.0.1"],
  lookup: () => Promise.resolve([{ address: "127.0.0.2", family: 4 }]),
  launchArgs: [marker],
});

type Outcome = { path: string; status?: number; code?: string; body?: string };
async function render(path: string, input: BrowserOptionsInput, abortAfterMs?: number): Promise<Outcome> {
  const controller = new AbortController();
  const timer = abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(new Error("caller gave up")), abortAfterMs);
  try {
    const res = await fetcher.fetch({ url: `${hostile.site.url}${path}`, browserOptions: BrowserOptionsSchema.parse(input), signal: controller.signal });
    return { path, status: res.status, body: res.body };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { path, code: typeof code === "string" ? code : `not a FetchError: ${String(error)}` };
  } finally {
    clearTimeout(timer);
    const pid = fetcher.browserProcessId();
    if (pid !== null && pidFile !== "") fs.appendFileSync(pidFile, `${String(pid)}\n`);
  }
}

const outcomes: Outcome[] = [];
for (const path of ["/popup-open", "/popup-blank", "/popup-loop", "/popup-inward"]) {
  outcomes.push(await render(path, { waitStrategy: "load", extraWaitMs: 800 }));
}
outcomes.push(await render("/popup-late", { waitStrategy: "load", extraWaitMs: 300 }));
outcomes.push(await render("/navigate-inward", { waitStrategy: "load", extraWaitMs: 500 }));
outcomes.push(await render("/egress", { waitStrategy: "load", extraWaitMs: 500 }));
// Renders cut short while popups are opening: routes are answered after their page closed.
outcomes.push(...(await Promise.all([render("/popup-late", { waitStrategy: "load", extraWaitMs: 2000 }, 400), render("/popup-loop", { waitStrategy: "load", extraWaitMs: 2000 }, 150)])));
// A deadline hit while popups keep opening.
outcomes.push(await render("/popup-late", { waitStrategy: "networkidle", timeoutMs: 1000 }));
// A renderer killed by its heap cap (the page allocates ~1 GB against a 64 MB cap).
const capped = createBrowserFetcher({ allowAddresses: ["127.0.0.1"], maxHeapMb: 64, launchArgs: [marker] });
try {
  await capped.fetch({ url: `${hostile.site.url}/allocate`, browserOptions: BrowserOptionsSchema.parse({ waitStrategy: "load" }) });
  outcomes.push({ path: "/allocate", status: 200 });
} catch (error) {
  outcomes.push({ path: "/allocate", code: String((error as { code?: unknown }).code) });
} finally {
  const pid = capped.browserProcessId();
  if (pid !== null && pidFile !== "") fs.appendFileSync(pidFile, `${String(pid)}\n`);
  await capped.close();
}
// Late events of closed pages and contexts get their chance to escape.
await new Promise((resolve) => setTimeout(resolve, 1500));
await fetcher.close();
const result = {
  outcomes: outcomes.map(({ body, ...rest }) => ({ ...rest, mainShown: body?.includes(`<p id="main">main</p>`) ?? false })),
  escaped,
  internalConnections: hostile.internal.connections,
  sitePaths: hostile.site.paths,
};
await hostile.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
