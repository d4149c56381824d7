// The engine's channel sender: a message that cannot be made for its channel (a template whose
// output the service cannot take, an event the channel does not carry) is a failed attempt at
// once, not a retry on the schedule for a day; nothing is sent. After a key rotation, a channel's
// URL is sealed again under the new key at its next send, once per channel; a URL sealed under a key
// this process is not given yet (a rolling rotation) is retried, not failed.
import { createSecretBox, generateSecretKey, parseSecretKeys, type ChannelRecord, type NewChannel } from "@driftwatch/core";
import { createNotifier } from "@driftwatch/notify";
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { createChannelSender, resealInStore } from "../../src/notify/channel-sender.js";
import { channelSecretContext, resealChannelUrl } from "../../src/routes/channels.js";

const box = createSecretBox(parseSecretKeys(generateSecretKey()));

function channelFor(url: string, template: string | null): ChannelRecord {
  const id = "ch_01JSENDER00000000000000000";
  return {
    id,
    orgId: "org_01JSENDER00000000000000000",
    name: "c",
    service: "json",
    urlSealed: box.seal(url, channelSecretContext(id)),
    urlMasked: "***",
    minSeverity: "info",
    tags: [],
    events: ["diff.detected", "monitor.failing"],
    groupSeconds: 0,
    quietHours: null,
    template,
    paused: false,
    status: "ok",
    statusReason: null,
    createdAt: "2026-11-28T00:00:00.000Z",
    updatedAt: "2026-11-28T00:00:00.000Z",
  };
}

const change = {
  event: "diff.detected",
  id: "evt_1",
  occurredAt: "2026-11-28T06:00:00.000Z",
  monitor: { id: "mon_1", name: "Orders" },
  diff: { id: "dif_1", snapshotId: "snp_1", classification: "content_change", topSeverity: "high", changes: [{ path: "$.a", op: "replace", severity: "high", before: 1, after: 2 }], totalChanges: 1 },
};

describe("the channel sender", () => {
  it("fails a message its channel cannot make at once, sending nothing", async () => {
    const sent: string[] = [];
    const notifier = createNotifier({
      checkUrl: async () => undefined,
      transport: async (request) => {
        sent.push(request.url);
        return { status: 200, headers: {}, body: "" };
      },
    });
    const sender = createChannelSender(notifier, { box, source: "env" });
    const signal = new AbortController().signal;
    // a JSON template that does not render JSON (stored before its output was checked)
    const broken = await sender.send(channelFor("jsons://hooks.example.com/in", '{"text": {{monitor.name}}}'), [change], signal);
    expect(broken).toMatchObject({ outcome: "failed" });
    expect(broken.outcome === "delivered" ? "" : broken.reason).toMatch(/^invalid_template: /);
    // a signed webhook carries diff.detected only
    const health = { event: "monitor.failing", id: "evt_2", occurredAt: "2026-11-28T06:00:00.000Z", monitor: { id: "mon_1", name: "Orders" }, reason: "timeout", consecutiveFailures: 3 };
    const refused = await sender.send(channelFor("webhooks://hooks.example.com/in?secret=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", null), [health], signal);
    expect(refused).toMatchObject({ outcome: "failed" });
    expect(refused.outcome === "delivered" ? "" : refused.reason).toMatch(/^unsupported_event: /);
    expect(sent).toEqual([]);
    // the same channel with a good template delivers
    expect(await sender.send(channelFor("jsons://hooks.example.com/in", '{"text": "{{monitor.name}}"}'), [change], signal)).toMatchObject({ outcome: "delivered" });
    expect(sent).toEqual(["https://hooks.example.com/in"]);
    await notifier.close();
  });

  it("seals a URL sealed under an older key again under the current one at its next send (a rotation)", async () => {
    const oldKey = generateSecretKey();
    const before = createSecretBox(parseSecretKeys(oldKey));
    const rotated = createSecretBox(parseSecretKeys(`${generateSecretKey()},${oldKey}`));
    const notifier = createNotifier({ checkUrl: async () => undefined, transport: async () => ({ status: 200, headers: {}, body: "" }) });
    const resealed: { id: string; urlSealed: string }[] = [];
    const sender = createChannelSender(notifier, { box: rotated, source: "env" }, { reseal: async (channel, urlSealed) => resealed.push({ id: channel.id, urlSealed }) });
    const url = "jsons://hooks.example.com/in";
    const channel = { ...channelFor(url, null), urlSealed: before.seal(url, channelSecretContext("ch_01JSENDER00000000000000000")) };
    expect(await sender.send(channel, [change], new AbortController().signal)).toMatchObject({ outcome: "delivered" });
    expect(resealed).toHaveLength(1);
    expect(rotated.needsReseal(resealed[0]!.urlSealed)).toBe(false);
    expect(rotated.open(resealed[0]!.urlSealed, channelSecretContext(channel.id))).toBe(url);
    // a URL already under the current key is left alone
    expect(await sender.send({ ...channel, urlSealed: resealed[0]!.urlSealed }, [change], new AbortController().signal)).toMatchObject({ outcome: "delivered" });
    expect(resealed).toHaveLength(1);
    await notifier.close();
  });

  it("writes the re-seal once per channel while its messages carry the record read at claim time", async () => {
    const oldKey = generateSecretKey();
    const before = createSecretBox(parseSecretKeys(oldKey));
    const rotated = createSecretBox(parseSecretKeys(`${generateSecretKey()},${oldKey}`));
    const notifier = createNotifier({ checkUrl: async () => undefined, transport: async () => ({ status: 200, headers: {}, body: "" }) });
    const writes: string[] = [];
    let failNext = true;
    const sender = createChannelSender(notifier, { box: rotated, source: "env" }, {
      reseal: async (channel) => {
        writes.push(channel.id);
        if (failNext) {
          failNext = false;
          throw new Error("database unavailable");
        }
      },
    });
    const url = "jsons://hooks.example.com/in";
    const stale = { ...channelFor(url, null), urlSealed: before.seal(url, channelSecretContext("ch_01JSENDER00000000000000000")) };
    const signal = new AbortController().signal;
    // a failed write is tried again at the next send; once written, the stale record is not re-sealed again
    for (let i = 0; i < 4; i++) expect(await sender.send(stale, [change], signal)).toMatchObject({ outcome: "delivered" });
    expect(writes).toEqual([stale.id, stale.id]);
    // another channel still moves at its own next send
    const other = { ...stale, id: "ch_01JSENDER00000000000000001", urlSealed: before.seal(url, channelSecretContext("ch_01JSENDER00000000000000001")) };
    expect(await sender.send(other, [change], signal)).toMatchObject({ outcome: "delivered" });
    expect(writes).toEqual([stale.id, stale.id, other.id]);
    await notifier.close();
  });

  it("retries, not fails, a message whose URL another process sealed under a key this one lacks (a rolling rotation)", async () => {
    const oldKey = generateSecretKey();
    const newKey = generateSecretKey();
    const restarted = createSecretBox(parseSecretKeys(`${newKey},${oldKey}`));
    const notRestarted = createSecretBox(parseSecretKeys(oldKey));
    const sent: string[] = [];
    const notifier = createNotifier({
      checkUrl: async () => undefined,
      transport: async (request) => {
        sent.push(request.url);
        return { status: 200, headers: {}, body: "" };
      },
    });
    const url = "jsons://hooks.example.com/in";
    const channel = { ...channelFor(url, null), urlSealed: restarted.seal(url, channelSecretContext("ch_01JSENDER00000000000000000")) };
    const signal = new AbortController().signal;
    const result = await createChannelSender(notifier, { box: notRestarted, source: "env" }).send(channel, [change], signal);
    expect(result.outcome).toBe("retry");
    const reason = result.outcome === "delivered" ? "" : result.reason;
    expect(reason).toMatch(/^secret_unreadable: /);
    expect(reason).toContain(restarted.keyId);
    expect(reason).toContain("DRIFTWATCH_SECRET_KEY");
    expect(reason).not.toContain("hooks.example.com");
    expect(sent).toEqual([]);
    // once the process is given the new key, the message goes out
    expect(await createChannelSender(notifier, { box: createSecretBox(parseSecretKeys(`${oldKey},${newKey}`)), source: "env" }).send(channel, [change], signal)).toMatchObject({ outcome: "delivered" });
    // a URL damaged under a key the process holds is still a failure: no key will open it
    const parts = notRestarted.seal(url, channelSecretContext(channel.id)).split(".");
    parts[4] = (parts[4]![0] === "A" ? "B" : "A") + parts[4]!.slice(1);
    expect(await createChannelSender(notifier, { box: notRestarted, source: "env" }).send({ ...channel, urlSealed: parts.join(".") }, [change], signal)).toMatchObject({ outcome: "failed" });
    await notifier.close();
  });

  it("never undoes a URL changed between the read of the channel and its re-seal (the server's store writes)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dw-reseal-"));
    const store = await createSqliteStore({ filename: join(dir, "reseal.db") });
    const notifier = createNotifier({ checkUrl: async () => undefined, transport: async () => ({ status: 200, headers: {}, body: "" }) });
    try {
      const oldKey = generateSecretKey();
      const before = createSecretBox(parseSecretKeys(oldKey));
      const rotated = createSecretBox(parseSecretKeys(`${generateSecretKey()},${oldKey}`));
      const org = await store.createOrganization({ slug: "reseal" });
      const oldUrl = "jsons://hooks.example.com/old";
      const newUrl = "jsons://hooks.example.com/new";
      const base = { name: "c", service: "json", urlMasked: "***", minSeverity: "info", tags: [], events: ["diff.detected"], groupSeconds: 0, quietHours: null, template: null, paused: false } satisfies Omit<NewChannel, "urlSealed">;
      for (const via of ["sender", "test route"] as const) {
        const created = await store.createChannel(org.id, { ...base, urlSealed: "pending" });
        const context = channelSecretContext(created.id);
        const stale = (await store.updateChannel(org.id, created.id, { urlSealed: before.seal(oldUrl, context), updatedAt: "2026-11-28T01:00:00.000Z" }))!;
        // a user changes the URL after the channel was read for a send, before its re-seal is written
        await store.updateChannel(org.id, created.id, { urlSealed: rotated.seal(newUrl, context), updatedAt: "2026-11-28T02:00:00.000Z" });
        if (via === "sender") {
          const sender = createChannelSender(notifier, { box: rotated, source: "env" }, { reseal: resealInStore(store) });
          expect(await sender.send(stale, [change], new AbortController().signal)).toMatchObject({ outcome: "delivered" });
        } else {
          await resealChannelUrl(store, rotated, stale, oldUrl, new Date("2026-11-28T03:00:00.000Z"));
        }
        const stored = (await store.getChannel(org.id, created.id))!;
        expect(rotated.open(stored.urlSealed, context), via).toBe(newUrl);
        expect(stored.updatedAt, via).toBe("2026-11-28T02:00:00.000Z");
        // without a change in between, the re-seal is written
        const again = (await store.updateChannel(org.id, created.id, { urlSealed: before.seal(oldUrl, context), updatedAt: "2026-11-28T04:00:00.000Z" }))!;
        await createChannelSender(notifier, { box: rotated, source: "env" }, { reseal: resealInStore(store) }).send(again, [change], new AbortController().signal);
        const resealed = (await store.getChannel(org.id, created.id))!;
        expect(rotated.needsReseal(resealed.urlSealed), via).toBe(false);
        expect(rotated.open(resealed.urlSealed, context), via).toBe(oldUrl);
      }
    } finally {
      await notifier.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
