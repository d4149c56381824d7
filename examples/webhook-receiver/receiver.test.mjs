import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { Webhook } from "standardwebhooks";
import { createReceiver } from "./receiver.mjs";

const secret = "whsec_" + Buffer.from("example-secret-example-secret-32").toString("base64");
const event = {
  schemaVersion: "v1",
  eventVersion: 1,
  eventId: "evt_01JEXAMPLEEXAMPLE00000000",
  eventType: "diff.detected",
  occurredAt: new Date().toISOString(),
  deliveredAt: new Date().toISOString(),
  monitorId: "mon_01JEXAMPLEEXAMPLE00000000",
  diffId: "dif_01JEXAMPLEEXAMPLE00000000",
  snapshotId: "snp_01JEXAMPLEEXAMPLE00000000",
  data: { classification: "schema_change", schemaChanges: 1, valueChanges: 0, changes: [{ path: "$.price", category: "schema", op: "remove", severity: "critical" }] },
};

test("verifies, handles each eventId once, refuses tampering", async () => {
  const handled = [];
  const server = createReceiver({ secret, onEvent: (e) => void handled.push(e.eventId) });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${server.address().port}/`;
  try {
    const body = JSON.stringify(event);
    const now = new Date();
    const headers = {
      "content-type": "application/json",
      "webhook-id": event.eventId,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(event.eventId, now, body),
    };
    assert.equal((await fetch(url, { method: "POST", headers, body })).status, 204);
    assert.equal((await fetch(url, { method: "POST", headers, body })).status, 200); // a redelivery
    assert.deepEqual(handled, [event.eventId]);
    const tampered = body.replace("critical", "info");
    assert.equal((await fetch(url, { method: "POST", headers, body: tampered })).status, 400);
    assert.deepEqual(handled, [event.eventId]);
  } finally {
    server.close();
  }
});
