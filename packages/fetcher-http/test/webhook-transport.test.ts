// createWebhookTransport: the engine's webhook POSTs through the guarded dispatcher.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookTransport } from "../src/index.js";
import { startServer, type TestServer } from "./server.js";

describe("createWebhookTransport", () => {
  let receiver: TestServer;
  let body = "";
  beforeAll(async () => {
    receiver = await startServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        body = Buffer.concat(chunks).toString("utf8");
        if (req.url === "/busy") res.writeHead(429, { "retry-after": "120" }).end("slow down");
        else if (req.url === "/moved") res.writeHead(307, { location: "/elsewhere" }).end();
        else res.writeHead(204).end();
      });
    });
  });
  afterAll(() => receiver.close());

  const post = (url: string) => ({ url, body: '{"a":1}', headers: { "content-type": "application/json", "webhook-id": "msg_1" }, signal: AbortSignal.timeout(10_000) });

  it("POSTs the body and headers and answers the status and Retry-After", async () => {
    const transport = createWebhookTransport({ allowPrivateNetworks: true });
    try {
      expect(await transport.post(post(`${receiver.url}/ok`))).toEqual({ status: 204, retryAfter: undefined });
      expect(body).toBe('{"a":1}');
      expect(receiver.lastHeaders["webhook-id"]).toBe("msg_1");
      expect(await transport.post(post(`${receiver.url}/busy`))).toEqual({ status: 429, retryAfter: "120" });
    } finally {
      await transport.close();
    }
  });

  it("never follows a redirect: the 3xx is the answer", async () => {
    const transport = createWebhookTransport({ allowPrivateNetworks: true });
    try {
      expect((await transport.post(post(`${receiver.url}/moved`))).status).toBe(307);
      expect(receiver.requests).not.toContain("POST /elsewhere");
    } finally {
      await transport.close();
    }
  });

  it("refuses a loopback receiver with the guard on, with a FetchError unsafe_url, without connecting", async () => {
    const transport = createWebhookTransport();
    const before = receiver.connections;
    try {
      await expect(transport.post(post(`${receiver.url}/ok`))).rejects.toMatchObject({ name: "FetchError", code: "unsafe_url" });
      expect(receiver.connections).toBe(before);
    } finally {
      await transport.close();
    }
  });
});
