import http from "node:http";
import type { AddressInfo } from "node:net";

/** How often the demo content changes. */
export const DEMO_PERIOD_MS = 15_000;

export interface DemoTarget {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** A JSON API whose values change every period and whose schema changes every fourth period. */
  apiUrl: string;
  /** An HTML page whose headlines change every period. */
  pageUrl: string;
  close(): Promise<void>;
}

const PRODUCTS = [
  { sku: "CAF-1", name: "Espresso beans", base: 12.5 },
  { sku: "TEA-2", name: "Green tea", base: 6.2 },
  { sku: "CHO-3", name: "Dark chocolate", base: 3.9 },
];

const HEADLINES = [
  "Release 4.2 ships structured diffs",
  "Pricing page moves to annual plans",
  "Status: all systems operational",
  "New region: eu-north-1",
  "Maintenance window on Sunday",
  "API v2 deprecates the legacy endpoint",
  "Webhooks now retried for 36 hours",
];

/**
 * The JSON of period `n`: prices move every period; every fourth period the schema changes (a
 * `promo` member appears and `stock` turns from a number into a string), which the diff engine
 * classifies as a critical `schema_change`.
 */
export function demoApiDocument(n: number, now: Date = new Date()): unknown {
  const schemaShift = n % 4 === 3;
  return {
    service: "driftwatch demo prices",
    currency: "EUR",
    period: n,
    updatedAt: now.toISOString(),
    items: PRODUCTS.map((p, i) => {
      const price = Math.round((p.base + ((n * (i + 3)) % 7) * 0.1) * 100) / 100;
      const stock = (n * 7 + i * 13) % 40;
      return schemaShift
        ? { sku: p.sku, name: p.name, price, stock: stock > 0 ? "in stock" : "sold out", promo: { code: `DEMO${n % 100}`, percent: 10 } }
        : { sku: p.sku, name: p.name, price, stock };
    }),
  };
}

/** The HTML of period `n`: a page with three rotating headlines and a changing counter. */
export function demoPageHtml(n: number): string {
  const headlines = [0, 1, 2].map((k) => HEADLINES[(n + k * 2) % HEADLINES.length]!);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>driftwatch demo page</title></head>
<body>
  <header><h1>Demo news</h1></header>
  <main id="news">
    <ul class="headlines">
${headlines.map((h, i) => `      <li id="headline-${i}">${h}</li>`).join("\n")}
    </ul>
    <p class="edition">Edition ${n}</p>
  </main>
  <footer>Served by the driftwatch demo target.</footer>
</body>
</html>
`;
}

/** Starts the demo target on 127.0.0.1 (port 0 unless given). */
export async function startDemoTarget(options: { port?: number; now?: () => number } = {}): Promise<DemoTarget> {
  const now = options.now ?? Date.now;
  const server = http.createServer((req, res) => {
    const period = Math.floor(now() / DEMO_PERIOD_MS);
    const url = new URL(req.url ?? "/", "http://demo");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
    } else if (url.pathname === "/api/prices.json") {
      const body = JSON.stringify(demoApiDocument(period, new Date(period * DEMO_PERIOD_MS)));
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(req.method === "HEAD" ? undefined : body);
    } else if (url.pathname === "/news.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(req.method === "HEAD" ? undefined : demoPageHtml(period));
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    apiUrl: `${origin}/api/prices.json`,
    pageUrl: `${origin}/news.html`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
