import { isFetchError } from "@driftwatch/fetcher-http";
import { defineChannel, type SendResult } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeLine, changeValues, type MessageModel } from "../notification.js";
import { escapeHtml, oneLine, truncate } from "../text.js";
import { parseAppriseUrl, requireHost, splitList } from "../url.js";

// E-mail over SMTP with nodemailer: a text and an HTML part. Apprise's mailto:// / mailtos://
// syntax (https://github.com/caronc/apprise/wiki/Notify_email): the user and password log in,
// the host is the mail domain (and the SMTP server unless ?smtp= names one), the path and ?to=
// list recipients, ?from=, ?name=, ?cc=, ?bcc=, ?reply=, ?mode=ssl|starttls|insecure. The subject
// is one line; every target value in the HTML part is escaped.

export interface EmailOptions {
  smtpHost: string;
  port: number;
  mode: "ssl" | "starttls" | "insecure";
  user: string | undefined;
  password: string | undefined;
  from: string;
  fromName: string | undefined;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string | undefined;
}

const PORTS = { ssl: 465, starttls: 587, insecure: 25 } as const;
const EMAIL = /^[^\s@<>(),;:"\\]+@[A-Za-z0-9.-]+\.?[A-Za-z0-9-]*$/;
// The SMTP servers of common providers, as Apprise's templates know them.
const PROVIDERS: Record<string, { host: string; mode: EmailOptions["mode"] }> = {
  "gmail.com": { host: "smtp.gmail.com", mode: "starttls" },
  "googlemail.com": { host: "smtp.gmail.com", mode: "starttls" },
  "yahoo.com": { host: "smtp.mail.yahoo.com", mode: "starttls" },
  "outlook.com": { host: "smtp-mail.outlook.com", mode: "starttls" },
  "hotmail.com": { host: "smtp-mail.outlook.com", mode: "starttls" },
  "live.com": { host: "smtp-mail.outlook.com", mode: "starttls" },
  "fastmail.com": { host: "smtp.fastmail.com", mode: "ssl" },
  "zoho.com": { host: "smtp.zoho.com", mode: "ssl" },
  "yandex.com": { host: "smtp.yandex.com", mode: "ssl" },
};

export const EMAIL_LIMITS = { subject: 200 } as const;

export interface EmailPayload {
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

function addresses(service: string, part: string, list: string[]): string[] {
  for (const [index, address] of list.entries()) {
    if (!EMAIL.test(address)) throw invalidUrl(service, `${part}[${index}]`, "not an e-mail address");
  }
  return list;
}

export function emailParts(message: MessageModel, template: { text: string; html: string } | undefined): Omit<EmailPayload, "messageId"> {
  const subject = truncate(oneLine(`driftwatch: ${message.title}`), EMAIL_LIMITS.subject);
  const more = message.more > 0 ? `and ${message.more} more` : "";
  const linkText = message.event === "diff.detected" ? "View the diff" : "View the monitor";
  const text = [
    message.title,
    "",
    template?.text ?? [`${message.classificationLabel}: ${message.summary}`, ...message.changes.map((c) => `- ${changeLine(c)}`), ...(more ? [more] : [])].join("\n"),
    ...(message.link ? ["", `${linkText}: ${message.link}`] : []),
  ].join("\n");
  const rows = message.changes
    .map(
      (c) =>
        `<tr><td style="padding:4px 8px"><strong>${escapeHtml(c.severity)}</strong></td><td style="padding:4px 8px;font-family:monospace">${escapeHtml(c.path)}</td><td style="padding:4px 8px">${escapeHtml(changeValues(c).trim())}</td></tr>`,
    )
    .join("");
  const html = [
    "<!doctype html><html><body style=\"font-family:sans-serif\">",
    `<h2>${escapeHtml(message.title)}</h2>`,
    template !== undefined
      ? `<div style="white-space:pre-wrap">${template.html}</div>`
      : `<p>${escapeHtml(message.classificationLabel)}: ${escapeHtml(message.summary)}</p>${rows ? `<table>${rows}</table>` : ""}${more ? `<p><em>${more}</em></p>` : ""}`,
    message.link ? `<p><a href="${escapeHtml(message.link)}">${linkText}</a></p>` : "",
    "</body></html>",
  ].join("");
  return { subject, text, html };
}

export const emailChannel = defineChannel<EmailOptions, EmailPayload>({
  service: "email",
  title: "E-mail",
  schemes: ["mailto", "mailtos"],
  parse(raw) {
    const service = "email";
    const parts = parseAppriseUrl(raw, service);
    const q = parts.query;
    const domain = requireHost(service, parts.host);
    const user = q["user"] ?? parts.user;
    const password = q["pass"] ?? q["password"] ?? parts.password;
    const provider = PROVIDERS[domain.toLowerCase()];
    const secure = parts.scheme === "mailtos";
    const modeText = (q["mode"] ?? (secure ? (provider?.mode ?? "starttls") : "insecure")).toLowerCase();
    if (modeText !== "ssl" && modeText !== "starttls" && modeText !== "insecure") throw invalidUrl(service, "query.mode", "mode is ssl, starttls or insecure");
    const mode = modeText;
    const smtpHost = q["smtp"] !== undefined && q["smtp"] !== "" ? requireHost(service, q["smtp"]) : (provider?.host ?? domain);
    const fromText = q["from"] ?? (user !== undefined && user.includes("@") ? user : user !== undefined ? `${user}@${domain}` : `driftwatch@${domain}`);
    // Apprise: from=Name <addr@x> is accepted too.
    const named = /^\s*(.*?)\s*<([^>]+)>\s*$/.exec(fromText);
    const from = (named ? named[2] : fromText) ?? "";
    addresses(service, "query.from", [from]);
    const fromName = q["name"] ?? (named?.[1] !== "" ? named?.[1] : undefined);
    const to = addresses(service, "to", [...parts.path, ...splitList(q["to"])]);
    return {
      options: {
        smtpHost,
        port: parts.port ?? PORTS[mode],
        mode,
        user,
        password,
        from,
        fromName: fromName === undefined ? undefined : truncate(oneLine(fromName), 100),
        to: to.length > 0 ? to : [from],
        cc: addresses(service, "query.cc", splitList(q["cc"])),
        bcc: addresses(service, "query.bcc", splitList(q["bcc"])),
        replyTo: q["reply"] === undefined ? undefined : (addresses(service, "query.reply", [q["reply"]])[0] as string),
      },
      secrets: ["password"],
    };
  },
  format(message, _options, context, notification) {
    const html = context.renderTemplate(escapeHtml);
    const text = context.renderTemplate((t) => t);
    return {
      ...emailParts(message, html === undefined || text === undefined ? undefined : { html, text }),
      messageId: `<${notification.id.replace(/[^A-Za-z0-9._-]/g, "_")}@driftwatch>`,
    };
  },
  async send(payload, options, context): Promise<SendResult> {
    // The SMTP host passes the SSRF guard, and nodemailer connects to the address it checked.
    const address = await context.checkHost(options.smtpHost);
    const nodemailer = await import("nodemailer");
    const transport = (nodemailer.default ?? nodemailer).createTransport({
      host: address,
      port: options.port,
      secure: options.mode === "ssl",
      requireTLS: options.mode === "starttls",
      ignoreTLS: options.mode === "insecure",
      name: "driftwatch",
      tls: { servername: options.smtpHost },
      ...(options.user === undefined ? {} : { auth: { user: options.user, pass: options.password ?? "" } }),
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 15_000,
    });
    const abort = (): void => transport.close();
    context.signal.addEventListener("abort", abort, { once: true });
    try {
      const info = await transport.sendMail({
        from: options.fromName === undefined ? options.from : { name: options.fromName, address: options.from },
        to: options.to,
        ...(options.cc.length > 0 ? { cc: options.cc } : {}),
        ...(options.bcc.length > 0 ? { bcc: options.bcc } : {}),
        ...(options.replyTo === undefined ? {} : { replyTo: options.replyTo }),
        subject: payload.subject,
        text: payload.text,
        html: payload.html,
        messageId: payload.messageId,
        headers: { "X-Driftwatch-Notification": "1" },
      });
      const rejected = (info.rejected as unknown[] | undefined)?.length ?? 0;
      if (rejected > 0 && rejected === options.to.length + options.cc.length + options.bcc.length) return { outcome: "failed", reason: "every recipient was rejected" };
      return { outcome: "delivered", detail: truncate(oneLine(String(info.response ?? "")), 200) };
    } catch (error) {
      return smtpResult(error);
    } finally {
      context.signal.removeEventListener("abort", abort);
      transport.close();
    }
  },
});

/** SMTP answers: 4xx is temporary (retry), 5xx permanent (failed), an auth refusal is gone. */
export function smtpResult(error: unknown): SendResult {
  if (isFetchError(error)) throw error;
  const e = error as { code?: unknown; responseCode?: unknown; response?: unknown };
  const status = typeof e.responseCode === "number" ? e.responseCode : undefined;
  const response = typeof e.response === "string" ? truncate(oneLine(e.response), 200) : undefined;
  const reason = `${typeof e.code === "string" ? e.code : "SMTP error"}${response ? `: ${response}` : ""}`;
  if (e.code === "EAUTH") return { outcome: "gone", status, reason };
  if (status !== undefined && status >= 400 && status < 500) return { outcome: "retry", afterSeconds: undefined, status, reason };
  if (status !== undefined && status >= 500) return { outcome: "failed", status, reason };
  return { outcome: "retry", afterSeconds: undefined, reason: `${reason} (no answer from the SMTP server)` };
}
