// The service as a new user meets it: the real server (createDriftwatchServer) on a real SQLite
// file, monitors created through the API with no settings touched (so learning, the default), each
// history of the HELD-OUT part of the world corpus (packages/core/test/signal: real recorded
// payloads and pages with noise applied as real services apply it; nobody tunes on this part)
// served by a local target on 127.0.0.1 (the SSRF guard lifted for loopback, as in the other e2e
// tests) and checked through POST /api/monitors/{id}/check, one check per fetch. Pairs are judged
// from the third fetch on; the first two are reported apart. A diff is a `learning` diff exactly
// while the monitor has one stored content (its second fetch with new content).
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Change, severityRank } from "@driftwatch/schema";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shows } from "../../../core/test/signal/service-like.js";
import type { WorldHistory } from "../../../core/test/signal/world.js";
import { worldSplit } from "../../../core/test/signal/world-corpus.js";
import { createDriftwatchServer, type DriftwatchServer } from "../../src/index.js";

const TOKEN = "dw_" + "S".repeat(43);
/** What this test measured on the held-out histories (JSON and pages together). */
const FALSE_ALARMS_MEASURED = 21; // of 611 noise pairs, most on the third fetch (learned from one pair): rotating page blocks not yet seen twice
const UNDER_RATED_MEASURED = 0;
const dir = mkdtempSync(join(tmpdir(), "dw-signal-"));
let server: DriftwatchServer;
let base = "";
let target: http.Server;
let targetBase = "";
/** What the target serves for each history: its snapshot at the current fetch. */
const serving = new Map<number, { history: WorldHistory; t: number }>();

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

describe("the service on the world corpus's held-out histories (SQLite, monitors as created)", () => {
  it("checks every history through the API: no misses, and false alarms and under-rated changes held at what was measured", async () => {
    const histories = worldSplit().heldOut;
    const rows = { "pair 1 (fetch 2)": row(), "judged (fetch 3 on)": row() };
    const problems: string[] = [];
    let noisePairs = 0;
    let index = 0;
    for (const history of histories) {
      index++;
      serving.set(index, { history, t: 0 });
      const created = await api("POST", "/api/monitors", {
        type: history.kind === "json" ? "api" : "website",
        name: history.name.slice(0, 200),
        url: `${targetBase}/h/${String(index)}`,
        intervalSeconds: 3600,
        ...(history.selector !== undefined ? { selector: history.selector } : {}),
      });
      expect(created.status, history.name).toBe(201);
      const id = created.json.id as string;
      /** Contents the monitor had stored before this fetch: a snapshot is stored only when the content changed. */
      let stored = 0;
      for (let t = 0; t < history.snapshots.length; t++) {
        serving.set(index, { history, t });
        const checked = await api("POST", `/api/monitors/${id}/check`);
        expect(checked.status, `${history.name} fetch ${String(t + 1)}: ${JSON.stringify(checked.json)}`).toBe(200);
        const changedContent = t === 0 || JSON.stringify(history.snapshots[t]) !== JSON.stringify(history.snapshots[t - 1]);
        const before = stored;
        if (changedContent) stored++;
        if (t === 0) continue;
        const diff = checked.json.diff as { changes: Change[]; learning?: boolean } | null;
        const r = t === 1 ? rows["pair 1 (fetch 2)"] : rows["judged (fetch 3 on)"];
        r.pairs++;
        if (diff !== null) r.diffs++;
        if (diff?.learning === true) r.learning++;
        if (diff !== null) expect(diff.learning === true, `${history.name} fetch ${String(t + 1)}: learning with ${String(before)} stored contents`).toBe(before < 2);
        if (t === 1) continue;
        const label = history.labels[t - 1]!;
        const at = `${history.name}, fetch ${String(t + 1)}`;
        if (label.kind === "noise") {
          noisePairs++;
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
    console.log(`noise pairs judged: ${String(noisePairs)}`);
    if (problems.length > 0) console.log(problems.slice(0, 60).join("\n"));

    expect(histories.length).toBeGreaterThanOrEqual(60);
    // a monitor's first diff is recorded as learning (not notified unless it removes or retypes)
    expect(rows["pair 1 (fetch 2)"].learning).toBe(rows["pair 1 (fetch 2)"].diffs);
    const judged = rows["judged (fetch 3 on)"];
    // loud on every real change: no meaningful held-out change is missed
    expect(judged.misses, problems.join("\n")).toBe(0);
    // quiet on noise: at most what was measured (the learner of 2026-11-28), see docs/signal.md
    expect(judged.falseAlarms, problems.join("\n")).toBeLessThanOrEqual(FALSE_ALARMS_MEASURED);
    expect(judged.underRated, problems.join("\n")).toBeLessThanOrEqual(UNDER_RATED_MEASURED);
  }, 300_000);
});
