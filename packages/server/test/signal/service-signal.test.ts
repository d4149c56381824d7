// The service as a new user meets it: the real server (createDriftwatchServer) on a real SQLite
// file, monitors created through the API with no settings touched, each history of the signal
// corpus (packages/core/test/signal) served by a local target on 127.0.0.1 (the SSRF guard lifted
// for loopback, as in the other e2e tests) and checked through POST /api/monitors/{id}/check, one
// fetch per snapshot. The first pairs are the monitor's learning phase (unlabelled: the corpus
// mutates nothing there); the held-out pairs are labelled noise or meaningful. The table is
// printed; this file asserts what holds today, and is tightened as the learner improves.
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Change, severityRank } from "@driftwatch/schema";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type History, LEARN_SAMPLES } from "../../../core/test/signal/corpus.js";
import { htmlHistories } from "../../../core/test/signal/html-histories.js";
import { jsonHistories } from "../../../core/test/signal/json-histories.js";
import { createDriftwatchServer, type DriftwatchServer } from "../../src/index.js";

const TOKEN = "dw_" + "S".repeat(43);
const dir = mkdtempSync(join(tmpdir(), "dw-signal-"));
let server: DriftwatchServer;
let base = "";
let target: http.Server;
let targetBase = "";
/** What the target serves for each history: its snapshot at the current fetch. */
const serving = new Map<number, { history: History; t: number }>();

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? null : JSON.parse(text) };
}

beforeAll(async () => {
  target = http.createServer((req, res) => {
    const index = Number(/^\/h\/(\d+)$/.exec(req.url ?? "")?.[1]);
    const entry = serving.get(index);
    if (entry === undefined) return void res.writeHead(404).end();
    const snapshot = entry.history.snapshots[entry.t];
    if (entry.history.kind === "json") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(snapshot));
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(snapshot as string);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetBase = `http://127.0.0.1:${String((target.address() as AddressInfo).port)}`;
  server = await createDriftwatchServer({
    databaseUrl: `sqlite:${join(dir, "signal.db")}`,
    port: 0,
    host: "127.0.0.1",
    allowPrivateNetworks: true,
    adminToken: TOKEN,
    // checks only when asked, and no rate limit in the way of some thousand of them
    background: false,
    rateLimitReads: 1_000_000,
    rateLimitWrites: 1_000_000,
    logger: pino({ level: "silent" }),
  });
  await server.bootstrap();
  base = await server.listen();
});

afterAll(async () => {
  await server?.close();
  target?.closeAllConnections();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** `$.items[*].price` as a pattern of that path and anything below it, any index for `[*]`. */
function pathPattern(where: string): RegExp {
  const escaped = where.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("\\[\\*\\]", "\\[\\d+\\]");
  return new RegExp(`^${escaped}(?:$|[.[])`);
}

function shows(change: Change, history: History, where: string): boolean {
  if (history.kind === "json") {
    const pattern = pathPattern(where);
    return pattern.test(change.path) || (typeof change.from === "string" && pattern.test(change.from));
  }
  return [change.before, change.after].some((text) => typeof text === "string" && text.includes(where));
}

interface Row {
  pairs: number;
  /** Checks that recorded a diff (any, labelled or not). */
  diffs: number;
  /** Of those, marked `learning`. */
  learning: number;
  falseAlarms: number;
  misses: number;
  underRated: number;
}
const row = (): Row => ({ pairs: 0, diffs: 0, learning: 0, falseAlarms: 0, misses: 0, underRated: 0 });

describe("the service on the signal corpus (SQLite, monitors as created)", () => {
  it("checks every history through the API and reports false alarms, misses and under-rated changes", async () => {
    const histories = [...jsonHistories(), ...htmlHistories()];
    const rows = { "pair 1 (fetch 2)": row(), "pair 2 (fetch 3)": row(), [`pairs 3-${String(LEARN_SAMPLES - 1)} (unlabelled)`]: row(), "held-out (labelled)": row() };
    const problems: string[] = [];
    let index = 0;
    for (const history of histories) {
      index++;
      serving.set(index, { history, t: 0 });
      const created = await api("POST", "/api/monitors", {
        type: history.kind === "json" ? "api" : "website",
        name: history.name,
        url: `${targetBase}/h/${String(index)}`,
        intervalSeconds: 3600,
        ...(history.selector !== undefined ? { selector: history.selector } : {}),
      });
      expect(created.status, history.name).toBe(201);
      const id = created.json.id as string;
      /** Contents the monitor has stored: a snapshot is stored only when the content changed. */
      let stored = 0;
      for (let t = 0; t < history.snapshots.length; t++) {
        if (t === 0 || JSON.stringify(history.snapshots[t]) !== JSON.stringify(history.snapshots[t - 1])) stored++;
        serving.set(index, { history, t });
        const checked = await api("POST", `/api/monitors/${id}/check`);
        expect(checked.status, `${history.name} fetch ${String(t + 1)}: ${JSON.stringify(checked.json)}`).toBe(200);
        if (t === 0) continue;
        const diff = checked.json.diff as { changes: Change[]; learning?: boolean } | null;
        const key = t === 1 ? "pair 1 (fetch 2)" : t === 2 ? "pair 2 (fetch 3)" : t < LEARN_SAMPLES ? `pairs 3-${String(LEARN_SAMPLES - 1)} (unlabelled)` : "held-out (labelled)";
        const r = rows[key]!;
        r.pairs++;
        if (diff !== null) r.diffs++;
        if (diff?.learning === true) r.learning++;
        // a diff is recorded as learning exactly while the monitor has fewer than three contents (this one included)
        if (diff !== null) expect(diff.learning === true, `${history.name} fetch ${String(t + 1)}: learning with ${String(stored)} contents`).toBe(stored < 3);
        if (t < LEARN_SAMPLES) continue;
        const label = history.labels[t - LEARN_SAMPLES]!;
        const at = `${history.name}, fetch ${String(t + 1)}`;
        if (label.kind === "noise") {
          if (diff !== null) {
            r.falseAlarms++;
            problems.push(`false alarm: ${at}: ${diff.changes.map((c) => c.path).slice(0, 3).join(", ")}`);
          }
          continue;
        }
        const shown = diff?.changes.filter((change) => shows(change, history, label.where)) ?? [];
        if (shown.length === 0) {
          r.misses++;
          problems.push(`miss: ${at}: ${label.what} (${label.where})`);
          continue;
        }
        const top = shown.reduce((best, change) => Math.max(best, severityRank(change.severity)), 0);
        if (top < severityRank(label.minSeverity)) {
          r.underRated++;
          problems.push(`under-rated: ${at}: ${label.what} rated ${shown.map((c) => c.severity).join("/")}, expected >= ${label.minSeverity}`);
        }
      }
    }
    console.table(
      Object.entries(rows).map(([pairs, r]) => ({
        pairs,
        checked: r.pairs,
        "diffs recorded": r.diffs,
        "of them learning": r.learning,
        "false alarms": r.falseAlarms,
        misses: r.misses,
        "under-rated": r.underRated,
      })),
    );
    if (problems.length > 0) console.log(problems.slice(0, 40).join("\n"));

    // What holds today (the learner is being rewritten; the lead tightens these):
    // every monitor was created learning, with no settings touched
    expect(histories.length).toBeGreaterThanOrEqual(60);
    // a monitor's first diff is recorded as learning (not notified)
    expect(rows["pair 1 (fetch 2)"]!.learning).toBe(rows["pair 1 (fetch 2)"]!.diffs);
    // loud on every real change: no meaningful held-out change is missed
    expect(rows["held-out (labelled)"]!.misses).toBe(0);
    expect(rows["held-out (labelled)"]!.pairs).toBe(histories.reduce((n, h) => n + h.labels.length, 0));
  });
});
