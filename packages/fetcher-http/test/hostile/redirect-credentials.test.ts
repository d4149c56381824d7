// Hostile fixture (issue 12): a target redirecting to another origin must not receive the
// monitor's credential headers; the same origin keeps them. Two real servers on two ports.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpFetcher, isCredentialHeader } from "../../src/index.js";
import { startServer, type TestServer } from "../server.js";

/** Monitor headers a tenant may set: every credential spelling the API masks, and two plain ones. */
const SENT: Record<string, string> = {
  Authorization: "Bearer a",
  Cookie: "session=b",
  "X-Api-Key": "c",
  "Proxy-Authorization": "Basic d",
  "X-Auth-Token": "e",
  "X-Client-Secret": "f",
  "X-Signing-Key": "g",
  "Api-Key": "h",
  "X-Trace": "plain",
  Accept: "text/plain",
};
const CREDENTIALS = ["authorization", "cookie", "x-api-key", "proxy-authorization", "x-auth-token", "x-client-secret", "x-signing-key", "api-key"];

let origin: TestServer;
let other: TestServer;
const seen: Record<string, http.IncomingHttpHeaders> = {};

beforeAll(async () => {
  other = await startServer((req, res) => {
    seen[`other ${req.url ?? ""}`] = req.headers;
    res.end("other");
  });
  origin = await startServer((req, res) => {
    seen[`origin ${req.url ?? ""}`] = req.headers;
    if (req.url === "/cross") res.writeHead(302, { location: `${other.url}/landed` }).end();
    else if (req.url === "/same") res.writeHead(307, { location: "/landed" }).end();
    else if (req.url === "/cross-and-back") res.writeHead(302, { location: `${other.url}/back` }).end();
    else res.end("origin");
  });
});
afterAll(async () => {
  await origin.close();
  await other.close();
});

describe("credential headers on redirects", () => {
  const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  afterAll(() => fetcher.close());

  it("classifies credential header names as the API's masking rule does", () => {
    for (const name of CREDENTIALS) expect(isCredentialHeader(name)).toBe(true);
    expect(isCredentialHeader("X-API-KEY")).toBe(true);
    for (const name of ["accept", "x-trace", "user-agent", "content-type"]) expect(isCredentialHeader(name)).toBe(false);
  });

  it("keeps every header on a same-origin redirect", async () => {
    const res = await fetcher.fetch({ url: `${origin.url}/same`, headers: SENT });
    expect(res.finalUrl).toBe(`${origin.url}/landed`);
    const headers = seen["origin /landed"] ?? {};
    for (const name of CREDENTIALS) expect(headers[name], name).toBeDefined();
    expect(headers["x-trace"]).toBe("plain");
  });

  it("drops every credential header on a redirect to another port (another origin)", async () => {
    const res = await fetcher.fetch({ url: `${origin.url}/cross`, headers: SENT });
    expect(res.body).toBe("other");
    expect(res.finalUrl).toBe(`${other.url}/landed`);
    const first = seen["origin /cross"] ?? {};
    for (const name of CREDENTIALS) expect(first[name], name).toBeDefined();
    const landed = seen["other /landed"] ?? {};
    for (const name of CREDENTIALS) expect(landed[name], name).toBeUndefined();
    expect(landed["x-trace"]).toBe("plain");
    expect(landed.accept).toBe("text/plain");
  });
});
