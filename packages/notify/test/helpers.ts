import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DiffNotification, HealthNotification } from "../src/index.js";

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** The body as text to search: form fields decoded, else the body. */
  text: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakeService {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Answers queued for the requests whose path matches (`send` endpoints); others get `route`. */
  queue: Answer[];
  close(): Promise<void>;
}

/**
 * A local HTTP server that plays a service: `route` answers each request (it may check the
 * request and answer 400 as the service would), and answers pushed on `queue` are played back
 * first for requests `isSend` picks (the message itself, not a login).
 */
export async function startFakeService(route: (request: RecordedRequest) => Answer, isSend: (request: RecordedRequest) => boolean = () => true): Promise<FakeService> {
  const requests: RecordedRequest[] = [];
  const queue: Answer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      if (/^application\/x-www-form-urlencoded/.test(String(req.headers["content-type"]))) json = Object.fromEntries(new URLSearchParams(body));
      else {
        try {
          json = body === "" ? undefined : JSON.parse(body);
        } catch {
          json = undefined;
        }
      }
      const parsed = new URL(req.url ?? "/", "http://127.0.0.1");
      const form = /^application\/x-www-form-urlencoded/.test(String(req.headers["content-type"]));
      const text = form ? [...new URLSearchParams(body).values()].join("\n") : body;
      const recorded: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", path: parsed.pathname, query: parsed.searchParams, headers: req.headers, body, json, text };
      requests.push(recorded);
      const answer = isSend(recorded) && queue.length > 0 ? (queue.shift() as Answer) : route(recorded);
      const answerText = answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { "content-type": typeof answer.body === "string" ? "text/plain" : "application/json", ...answer.headers });
      res.end(answerText);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    queue,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function diffNotification(overrides: Partial<DiffNotification> = {}): DiffNotification {
  return {
    event: "diff.detected",
    id: "evt_0001",
    occurredAt: "2026-11-28T06:00:00.000Z",
    monitor: { id: "mon_orders", name: "Orders API", url: "https://api.example.com/orders" },
    diff: {
      id: "dif_42",
      snapshotId: "snp_7",
      classification: "schema_change",
      topSeverity: "critical",
      changes: [
        { path: "$.items[0].price", op: "replace", category: "schema", severity: "critical", before: "12.50", after: 12.5 },
        { path: "$.items[0].sku", op: "remove", category: "schema", severity: "high", before: "A-1" },
        { path: "$.updatedAt", op: "replace", category: "value", severity: "info", before: "2026-01-01", after: "2026-01-02" },
      ],
      totalChanges: 14,
    },
    ...overrides,
  };
}

export function recoveredNotification(): HealthNotification {
  return { event: "monitor.recovered", id: "evt_0002", occurredAt: "2026-11-28T07:00:00.000Z", monitor: { id: "mon_orders", name: "Orders API" } };
}

export function failingNotification(): HealthNotification {
  return { event: "monitor.failing", id: "evt_0003", occurredAt: "2026-11-28T06:30:00.000Z", monitor: { id: "mon_orders", name: "Orders API" }, reason: "timeout after 30 s", consecutiveFailures: 3 };
}

const BIG = "A".repeat(100 * 1024);

/** Target content that tries every trick: mentions, markup, CR LF, controls, bidi, 100 KB values. */
export function hostileNotification(): DiffNotification {
  const evil = "<!channel> <@U0123ABC> @everyone @here <b>bold</b> <a href=\"javascript:alert(1)\">x</a> *y* _z_ [link](https://evil.example) `code` &amp; \r\nBcc: victim@example.com\u0000\u0007\u202e";
  return {
    event: "diff.detected",
    id: "evt_hostile",
    occurredAt: "2026-11-28T06:00:00.000Z",
    monitor: { id: "mon_evil", name: `${evil}${BIG}`, url: `https://evil.example/${BIG}` },
    diff: {
      id: "dif_evil",
      snapshotId: "snp_evil",
      classification: "content_change",
      topSeverity: "high",
      changes: Array.from({ length: 60 }, (_, i) => ({
        path: i === 0 ? `$.${evil}` : `div.${evil}:nth-child(${i})`,
        op: "replace",
        severity: i < 2 ? ("high" as const) : ("info" as const),
        before: i === 0 ? BIG : evil,
        after: i === 1 ? { nested: BIG, emoji: "👍🏽\ud800" } : `${evil} 日本語 👍`,
      })),
      totalChanges: 500,
    },
  };
}

/** Every string inside a value (keys included). */
export function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) allStrings(item, out);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      allStrings(item, out);
    }
  }
  return out;
}

export const GUARD = { allowAddresses: ["127.0.0.1"] };
