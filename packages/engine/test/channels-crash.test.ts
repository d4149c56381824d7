// kill -9 of a channel delivery worker mid-run (the attempts are recorded in group commits): once
// the leases expire another worker sends what was left, nothing is lost, every message is
// recorded once, and only messages whose send was in flight at the kill can reach the service twice.
// On SQLite, and on PostgreSQL when it answers (the claim there runs without a transaction).
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Store } from "@driftwatch/core";
import { createPostgresStore } from "@driftwatch/store-postgres";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../tooling/test-postgres.js";
import { createChannelDeliveryService, type ChannelSender } from "../src/index.js";

const MESSAGES = 600;
const CHILD_CONCURRENCY = 16;

let dir: string | undefined;
let database: TestPostgresDatabase | undefined;
afterEach(async () => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  await database?.drop();
  database = undefined;
});

const postgresSkip = await postgresSkipReason();
const kinds = postgresSkip === null ? (["sqlite", "postgres"] as const) : (["sqlite"] as const);

/** The test's store and what the child opens it with (a file, or `postgres://...#schema`). */
async function openStore(kind: "sqlite" | "postgres"): Promise<{ store: Store; location: string }> {
  if (kind === "sqlite") {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-channels-crash-"));
    const file = path.join(dir, "outbox.db");
    return { store: await createSqliteStore({ filename: file }), location: file };
  }
  database = await createPostgresDatabase("dw_channels_crash");
  const schema = `crash_${randomBytes(4).toString("hex")}`;
  return { store: await createPostgresStore({ connectionString: database.url, schema }), location: `${database.url}#${schema}` };
}

describe.each(kinds)("channel outbox across kill -9 (%s)", (kind) => {
  it("loses nothing and records each message once; at most the sends in flight at the kill go twice", async () => {
    const { store, location: file } = await openStore(kind);
    const org = await store.createOrganization({ slug: "crash" });
    const channels = await Promise.all(
      [0, 1, 2].map((i) =>
        store.createChannel(org.id, { name: `c${String(i)}`, service: "slack", urlSealed: "sealed", urlMasked: "slack://***", minSeverity: "info", tags: [], events: ["diff.detected"], groupSeconds: 0, quietHours: null, template: null, paused: false }),
      ),
    );
    const at = new Date(Date.now() - 1_000).toISOString();
    for (const channel of channels) {
      await store.enqueueChannelDeliveries(
        org.id,
        Array.from({ length: MESSAGES / channels.length }, (_, i) => ({ channelId: channel.id, dedupKey: `k:${channel.id}:${String(i)}`, eventType: "diff.detected" as const, monitorId: null, diffId: null, payload: JSON.stringify({ key: `${channel.id}:${String(i)}` }), createdAt: at, nextAttemptAt: at })),
      );
    }
    const received: string[] = [];
    const service = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        received.push(...(JSON.parse(body) as { keys: string[] }).keys);
        setTimeout(() => res.writeHead(200).end("ok"), 2);
      });
    });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${String((service.address() as AddressInfo).port)}/`;
    try {
      const child = spawn(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", path.join(import.meta.dirname, "crash", "channels-child.ts"), file, url], {
        cwd: path.join(import.meta.dirname, ".."),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      // killed mid-run: after a third of the messages reached the service
      const started = Date.now();
      while (received.length < MESSAGES / 3) {
        if (Date.now() - started > 60_000) throw new Error(`the child sent ${String(received.length)} messages in 60 s: ${stderr.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      const atKill = received.length;
      expect(atKill).toBeLessThan(MESSAGES);

      // another worker, once the dead one's leases (1 s) expired
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const sender: ChannelSender = {
        async send(channel, payloads, signal) {
          const res = await fetch(url, { method: "POST", body: JSON.stringify({ channel: channel.id, keys: payloads.map((p) => (p as { key: string }).key) }), signal });
          await res.text();
          return { outcome: "delivered", status: res.status };
        },
      };
      const worker = createChannelDeliveryService({ store, sender, owner: "survivor", concurrency: 16, channelConcurrency: 4 });
      for (;;) if ((await worker.deliverDue({ limit: 100 })).claimed === 0) break;

      // nothing lost
      const distinct = new Set(received);
      expect(distinct.size).toBe(MESSAGES);
      // each message recorded once: succeeded, one attempt
      for (const channel of channels) {
        for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
          const page = await store.listChannelDeliveries(org.id, channel.id, { limit: 100, cursor });
          for (const message of page.data) {
            expect(message).toMatchObject({ state: "succeeded", attempts: 1 });
            expect(await store.listChannelDeliveryAttempts(org.id, message.id)).toHaveLength(1);
          }
          cursor = page.nextCursor;
        }
      }
      expect(await store.countPendingChannelDeliveries(org.id)).toBe(0);
      // sent twice: only what was sent and not yet recorded when the process died (each send holds its slot until recorded)
      expect(received.length - MESSAGES).toBeLessThanOrEqual(CHILD_CONCURRENCY);
    } finally {
      service.close();
      await store.close();
    }
  }, 120_000);
});
