// Invitation mail: optional, through an SMTP server (DRIFTWATCH_SMTP_URL, DRIFTWATCH_SMTP_FROM)
// with nodemailer. Without it, the invite link is only in the API answer.
import type { Role } from "@driftwatch/schema";

export interface InviteMail {
  to: string;
  orgName: string;
  role: Role;
  url: string;
  expiresAt: string;
  /** Display name of the inviter, when a person invited. */
  invitedBy: string | null;
}

export interface InviteMailer {
  /** Resolves when the SMTP server accepted the mail; rejects otherwise. */
  sendInvite(mail: InviteMail): Promise<void>;
  close(): void;
}

export interface SmtpSettings {
  /** `smtp://user:pass@host:587` or `smtps://...` (nodemailer's connection URL). */
  url: string;
  /** The From address: `driftwatch <noreply@example.com>`. */
  from: string;
}

/** How long one mail may take to hand over (an unreachable SMTP server must not hold the request long). */
const SMTP_TIMEOUT_MS = 10_000;

export async function createSmtpMailer(settings: SmtpSettings): Promise<InviteMailer> {
  const nodemailer = await import("nodemailer");
  const transport = (nodemailer.default ?? nodemailer).createTransport(settings.url, {
    from: settings.from,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  } as never);
  return {
    async sendInvite(mail) {
      const who = mail.invitedBy === null ? "You have been" : `${mail.invitedBy} has`;
      const verb = mail.invitedBy === null ? "invited" : "invited you";
      const text =
        `${who} ${verb} to join ${mail.orgName} on driftwatch as ${mail.role}.\n\n` +
        `Accept the invitation: ${mail.url}\n\n` +
        `The link works once and expires at ${mail.expiresAt}. If you did not expect it, ignore this mail.\n`;
      await transport.sendMail({ from: settings.from, to: mail.to, subject: `Join ${mail.orgName} on driftwatch`, text });
    },
    close() {
      transport.close();
    },
  };
}
