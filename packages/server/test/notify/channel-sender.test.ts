// The engine's channel sender: a message that cannot be made for its channel (a template whose
// output the service cannot take, an event the channel does not carry) is a failed attempt at
// once, not a retry on the schedule for a day; nothing is sent. After a key rotation, a channel's
// URL is sealed again under the new key at its next send.
import { createSecretBox, generateSecretKey, parseSecretKeys, type ChannelRecord } from "@driftwatch/core";
import { createNotifier } from "@driftwatch/notify";
import { describe, expect, it } from "vitest";
import { createChannelSender } from "../../src/notify/channel-sender.js";
import { channelSecretContext } from "../../src/routes/channels.js";

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
});
