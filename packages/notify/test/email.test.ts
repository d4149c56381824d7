import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterEach, describe, expect, it } from "vitest";
import { createNotifier } from "../src/index.js";
import { GUARD, diffNotification, hostileNotification } from "./helpers.js";

// E-mail against a real SMTP server (smtp-server) on loopback; what it receives is parsed with
// mailparser, as a mail client would.

interface Received {
  mail: ParsedMail;
  raw: string;
  from: string | undefined;
  to: string[];
  user: string | undefined;
}

let server: SMTPServer | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function startSmtp(options: { rejectRcpt?: { code: number; message: string }; password?: string } = {}): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  server = new SMTPServer({
    secure: false,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "alerts" && auth.password === (options.password ?? "s3cret!")) callback(null, { user: auth.username });
      else callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      if (options.rejectRcpt !== undefined) callback(Object.assign(new Error(options.rejectRcpt.message), { responseCode: options.rejectRcpt.code }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (mail) => {
            received.push({ mail, raw, from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined, to: session.envelope.rcptTo.map((r) => r.address), user: session.user as string | undefined });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => (server as SMTPServer).listen(0, "127.0.0.1", resolve));
  const port = ((server as SMTPServer & { server: { address(): AddressInfo } }).server.address() as AddressInfo).port;
  return { port, received };
}

const notifier = () => createNotifier({ guard: GUARD, publicUrl: "https://driftwatch.example.com" });

describe("e-mail over SMTP", () => {
  it("sends a text and an HTML part that say what changed", async () => {
    const { port, received } = await startSmtp();
    const n = notifier();
    const url = `mailto://alerts:${encodeURIComponent("s3cret!")}@127.0.0.1:${port}?from=alerts@example.com&name=driftwatch&to=ops@example.com,dev@example.com&cc=lead@example.com`;
    const result = await n.send(url, diffNotification());
    expect(result).toMatchObject({ outcome: "delivered" });
    expect(received).toHaveLength(1);
    const { mail, to, from, user } = received[0] as Received;
    expect(user).toBe("alerts");
    expect(from).toBe("alerts@example.com");
    expect(to.sort()).toEqual(["dev@example.com", "lead@example.com", "ops@example.com"]);
    expect(mail.subject).toBe("driftwatch: [CRITICAL] Orders API: schema change");
    expect(mail.from?.value[0]).toEqual({ address: "alerts@example.com", name: "driftwatch" });
    expect(mail.messageId).toBe("<evt_0001@driftwatch>");
    expect(mail.text).toContain('$.items[0].price "12.50" -> 12.5 (critical)');
    expect(mail.text).toContain("and 11 more");
    expect(mail.text).toContain("https://driftwatch.example.com/monitors/mon_orders/diffs/dif_42");
    expect(mail.html).toContain("<h2>[CRITICAL] Orders API: schema change</h2>");
    expect(mail.html).toContain('<a href="https://driftwatch.example.com/monitors/mon_orders/diffs/dif_42">');
    await n.close();
  });

  it("keeps hostile target content out of headers and markup", async () => {
    const { port, received } = await startSmtp();
    const n = notifier();
    const result = await n.send(`mailto://alerts:s3cret!@127.0.0.1:${port}?from=alerts@example.com&to=ops@example.com`, hostileNotification());
    expect(result).toMatchObject({ outcome: "delivered" });
    const { mail, raw, to } = received[0] as Received;
    expect(to).toEqual(["ops@example.com"]);
    expect(mail.bcc).toBeUndefined();
    expect(mail.headers.has("bcc")).toBe(false);
    expect(mail.subject).not.toMatch(/[\r\n\u0000]/);
    expect(mail.subject?.length).toBeLessThanOrEqual(200);
    expect(mail.html).not.toContain("<b>bold</b>");
    expect(mail.html).not.toMatch(/<a [^>]*href="javascript/);
    expect(mail.html).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(raw.length).toBeLessThan(200_000);
    await n.close();
  });

  it("a refused login is gone (the credentials must be fixed)", async () => {
    const { port } = await startSmtp({ password: "other" });
    const n = notifier();
    const result = await n.send(`mailto://alerts:wrong@127.0.0.1:${port}?from=alerts@example.com`, diffNotification());
    expect(result).toMatchObject({ outcome: "gone", reason: expect.stringContaining("EAUTH") });
    expect(result.outcome === "gone" ? result.reason : "").not.toContain("wrong");
    await n.close();
  });

  it("a temporary refusal (4xx) retries, a permanent one (5xx) fails", async () => {
    const temporary = await startSmtp({ rejectRcpt: { code: 451, message: "Try again later" } });
    const n = notifier();
    expect(await n.send(`mailto://alerts:s3cret!@127.0.0.1:${temporary.port}?from=alerts@example.com&to=ops@example.com`, diffNotification())).toMatchObject({ outcome: "retry", status: 451 });
    await new Promise<void>((resolve) => (server as SMTPServer).close(() => resolve()));
    const permanent = await startSmtp({ rejectRcpt: { code: 550, message: "No such user" } });
    expect(await n.send(`mailto://alerts:s3cret!@127.0.0.1:${permanent.port}?from=alerts@example.com&to=ops@example.com`, diffNotification())).toMatchObject({
      outcome: "failed",
      status: 550,
      reason: expect.stringContaining("No such user"),
    });
    await n.close();
  });

  it("refuses an SMTP server on a private address unless the guard allows it", async () => {
    const { port, received } = await startSmtp();
    const n = createNotifier();
    const result = await n.send(`mailto://alerts:s3cret!@127.0.0.1:${port}?from=alerts@example.com`, diffNotification());
    expect(result).toMatchObject({ outcome: "failed", reason: expect.stringContaining("unsafe_url") });
    expect(received).toHaveLength(0);
    await n.close();
  });

  it("renders a template into both parts, escaped in the HTML one", async () => {
    const { port, received } = await startSmtp();
    const n = notifier();
    const template = "{{monitor.name}} changed:\n{{#changes}}* {{path}} {{values}}\n{{/changes}}";
    const notification = diffNotification({ monitor: { id: "mon_x", name: "<i>Shop</i>" } });
    expect(await n.send(`mailto://alerts:s3cret!@127.0.0.1:${port}?from=alerts@example.com`, notification, { template })).toMatchObject({ outcome: "delivered" });
    const { mail } = received[0] as Received;
    expect(mail.text).toContain("<i>Shop</i> changed:\n* $.items[0].price");
    expect(mail.html).toContain("&lt;i&gt;Shop&lt;/i&gt; changed:");
    await n.close();
  });
});
