// Invitation mail through a real SMTP receiver (smtp-server on loopback): with
// DRIFTWATCH_SMTP_URL/FROM set, the invite link is mailed; a receiver that is down fails nothing
// (invite.mailed is false and the link is still in the answer).
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSetupLink } from "@driftwatch/people";
import { Browser, type PeopleServer, startPeopleServer, STRONG, tokenOfLink } from "./people-support.js";
import { tempDir } from "./support.js";

interface Received {
  from: string;
  to: string[];
  data: string;
}

const dir = tempDir("dw-people-smtp-");
const received: Received[] = [];
let smtp: SMTPServer;
let smtpPort = 0;
let running: PeopleServer;
let owner: Browser;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let data = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (data += chunk));
      stream.on("end", () => {
        received.push({ from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address, to: session.envelope.rcptTo.map((r) => r.address), data });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  running = await startPeopleServer(`sqlite:${path.join(dir, "smtp.db")}`, {
    smtp: { url: `smtp://127.0.0.1:${smtpPort}`, from: "driftwatch <noreply@example.com>" },
    publicUrl: "https://driftwatch.example.com",
  });
  const link = await createSetupLink(running.server.store, running.baseUrl, 3600);
  owner = new Browser(running.baseUrl, null);
  // With DRIFTWATCH_PUBLIC_URL set, writes must come from that origin.
  owner.origin = "https://driftwatch.example.com";
  const setup = await owner.send("POST", "/api/auth/setup", { token: tokenOfLink(link!.url), email: "owner@example.com", displayName: "Olive Owner", password: STRONG, orgName: "Acme" });
  expect(setup.status).toBe(201);
});

afterAll(async () => {
  await running?.close();
  await new Promise<void>((resolve) => (smtp.server.listening ? smtp.close(() => resolve()) : resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("invitation mail", () => {
  it("mails the link when SMTP is configured", async () => {
    const created = await owner.send("POST", "/api/invites", { email: "new@example.com", role: "member" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.invite.mailed).toBe(true);
    expect(created.body.url).toMatch(/^https:\/\/driftwatch\.example\.com\/invite#token=/);
    const mail = received.at(-1)!;
    expect(mail.from).toBe("noreply@example.com");
    expect(mail.to).toEqual(["new@example.com"]);
    expect(mail.data).toMatch(/Subject: Join Acme on driftwatch/);
    expect(mail.data).toContain("Olive Owner has invited you to join Acme on driftwatch as member");
    // The mailed link is the one in the answer (quoted-printable may wrap long lines).
    const body = mail.data.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    expect(body).toContain(created.body.url);
    // And it works.
    const invitee = new Browser(running.baseUrl);
    invitee.origin = "https://driftwatch.example.com";
    const accepted = await invitee.send("POST", "/api/invites/accept", { token: tokenOfLink(created.body.url), displayName: "New", password: STRONG });
    expect(accepted.status).toBe(200);
  });

  it("a cookie-authenticated write from the request's own origin is refused when the public URL names another", async () => {
    const local = new Browser(running.baseUrl);
    local.cookie = owner.cookie;
    local.csrf = owner.csrf;
    const refused = await local.send("POST", "/api/invites", { email: "x@example.com", role: "viewer" });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("csrf_failed");
  });

  it("an unreachable SMTP server does not fail the invitation", async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    const count = received.length;
    const created = await owner.send("POST", "/api/invites", { email: "later@example.com", role: "viewer" });
    expect(created.status).toBe(201);
    expect(created.body.invite.mailed).toBe(false);
    expect(created.body.url).toMatch(/#token=[A-Za-z0-9_-]{43}$/);
    expect(received.length).toBe(count);
    const lookup = await new Browser(running.baseUrl).send("GET", `/api/invites/lookup?token=${tokenOfLink(created.body.url)}`);
    expect(lookup.status).toBe(200);
  });
});
