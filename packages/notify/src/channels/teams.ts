import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeValues, type MessageModel } from "../notification.js";
import { shrinkToFit, truncate } from "../text.js";
import { origin, parseAppriseUrl, requireHost } from "../url.js";
import { fitChanges, jsonRequest, jsonSize, sendAndClassify } from "./shared.js";

// Microsoft Teams through a Workflows (Power Automate) webhook: a message with one Adaptive Card
// attachment (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using#send-adaptive-cards-using-an-incoming-webhook).
// Target text goes into TextRun elements of a RichTextBlock, which Teams does not read as
// markdown. A message is at most 28 KB.

export interface TeamsOptions {
  /** The webhook URL to POST to (a secret: it carries its signature). */
  url: string;
  /** The parts of the URL that authorise posting (the sig, the workflow id, connector tokens). */
  tokens: string[];
}

export const TEAMS_LIMITS = { payloadBytes: 28 * 1024 } as const;

export interface TeamsPayload {
  url: string;
  body: Record<string, unknown>;
}

function textRun(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "TextRun", text, ...extra };
}

export function adaptiveCard(message: MessageModel, body: string | undefined): Record<string, unknown> {
  const renderWith = (body: string | undefined, listed: number): Record<string, unknown> => {
    const items: Record<string, unknown>[] = [
      { type: "RichTextBlock", inlines: [textRun(truncate(message.title, 400), { size: "Large", weight: "Bolder" })] },
      // Facts and TextBlocks render markdown; TextRuns do not, so target text only goes there.
      {
        type: "RichTextBlock",
        inlines: [
          textRun(`${truncate(message.monitorName, 400)}: `, { weight: "Bolder" }),
          textRun(`${message.classificationLabel}, ${truncate(message.summary, 400)}`),
        ],
      },
    ];
    if (body !== undefined) items.push({ type: "RichTextBlock", inlines: [textRun(body)] });
    else {
      for (const change of message.changes.slice(0, listed)) {
        items.push({
          type: "RichTextBlock",
          inlines: [textRun(`${change.severity} `, { weight: "Bolder" }), textRun(change.path, { fontType: "Monospace" }), textRun(` ${changeValues(change).trim()}`)],
        });
      }
      const more = message.more + (message.changes.length - listed);
      if (more > 0) items.push({ type: "RichTextBlock", inlines: [textRun(`and ${more} more`, { italic: true })] });
    }
    const card: Record<string, unknown> = {
      $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
      type: "AdaptiveCard",
      version: "1.4",
      body: items,
      msteams: { width: "Full" },
    };
    if (message.link !== undefined) card["actions"] = [{ type: "Action.OpenUrl", title: message.event === "diff.detected" ? "View diff" : "View monitor", url: message.link }];
    return { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }] };
  };
  const fits = (payload: Record<string, unknown>): boolean => jsonSize(payload) <= TEAMS_LIMITS.payloadBytes;
  if (body !== undefined) return shrinkToFit(body, (cut) => renderWith(cut, 0), fits);
  return fitChanges(message.changes.length, (listed) => renderWith(undefined, listed), fits);
}

const WORKFLOW = /^https:\/\/([A-Za-z0-9_.-]+)(:\d{1,5})?(\/powerautomate\/automations\/direct(?:\/cu\/\d+)?)?\/workflows\/([A-Za-z0-9_-]+)\/triggers\/manual\/paths\/invoke\/?\?(.+)$/i;

export const teamsChannel = defineChannel<TeamsOptions, TeamsPayload>({
  service: "msteams",
  title: "Microsoft Teams",
  schemes: ["msteams", "workflow", "workflows"],
  matchesUrl: (url) =>
    /\/workflows\/[^/]+\/triggers\/manual\/paths\/invoke/.test(url.pathname) ||
    (/\.webhook\.office\.com$/i.test(url.hostname) && url.pathname.startsWith("/webhookb2/")),
  parse(raw) {
    const service = "msteams";
    const native = WORKFLOW.exec(raw);
    if (native) {
      const sig = new URLSearchParams(native[5]).get("sig");
      if (!sig) throw invalidUrl(service, "query.sig", "the Workflows URL has no sig= parameter");
      return { options: { url: raw, tokens: [sig, native[4] ?? ""] }, secrets: ["url", "tokens"] };
    }
    const office = /^https:\/\/[a-z0-9-]+\.webhook\.office\.com\/webhookb2\/([^?]+)/i.exec(raw);
    if (office) return { options: { url: raw, tokens: (office[1] ?? "").split("/").filter((t) => t !== "IncomingWebhook") }, secrets: ["url", "tokens"] };
    const parts = parseAppriseUrl(raw, service);
    if (parts.scheme === "workflow" || parts.scheme === "workflows") {
      // Apprise: workflows://HOST[:PORT]/WORKFLOW_ID/SIGNATURE[?pa=yes&ver=...]
      requireHost(service, parts.host);
      const [workflow, signature] = parts.path;
      const sig = signature ?? parts.query["signature"] ?? parts.query["sig"];
      if (workflow === undefined || !/^[A-Za-z0-9_-]+$/.test(workflow)) throw invalidUrl(service, "workflow", "the workflow id is missing: workflows://HOST/WORKFLOW/SIGNATURE");
      if (sig === undefined || !/^[A-Za-z0-9_-]+$/.test(sig)) throw invalidUrl(service, "signature", "the signature is missing: workflows://HOST/WORKFLOW/SIGNATURE");
      const powerAutomate = /^(1|y|yes|true)/i.test(parts.query["pa"] ?? "");
      const version = parts.query["ver"] ?? parts.query["api-version"] ?? (powerAutomate ? "2022-03-01-preview" : "2016-06-01");
      const query = new URLSearchParams({ "api-version": version, sp: "/triggers/manual/run", sv: "1.0", sig });
      const prefix = powerAutomate ? "/powerautomate/automations/direct" : "";
      return {
        options: { url: `${origin(true, parts.host, parts.port)}${prefix}/workflows/${workflow}/triggers/manual/paths/invoke?${query.toString()}`, tokens: [sig, workflow] },
        secrets: ["url", "tokens"],
      };
    }
    // Apprise's retired msteams:// (Office 365 connector) forms:
    // msteams://TEAM/TokenA/TokenB/TokenC/TokenD and msteams://TokenA/TokenB/TokenC.
    const segments = [parts.host, ...parts.path];
    const token = /^[A-Za-z0-9@_-]+$/;
    if (segments.length === 5 && segments.every((s) => token.test(s))) {
      const [team, a, b, c, d] = segments as [string, string, string, string, string];
      return { options: { url: `https://${team}.webhook.office.com/webhookb2/${a}/IncomingWebhook/${b}/${c}/${d}`, tokens: [a, b, c, d] }, secrets: ["url", "tokens"] };
    }
    if (segments.length === 3 && segments.every((s) => token.test(s))) {
      const [a, b, c] = segments as [string, string, string];
      return { options: { url: `https://outlook.office.com/webhook/${a}/IncomingWebhook/${b}/${c}`, tokens: [a, b, c] }, secrets: ["url", "tokens"] };
    }
    throw invalidUrl(service, "url", "use the Workflows webhook URL, workflows://HOST/WORKFLOW/SIGNATURE, or msteams://TEAM/A/B/C/D");
  },
  format(message, options, context) {
    return { url: options.url, body: adaptiveCard(message, context.renderTemplate((text) => text)) };
  },
  send(payload, _options, context) {
    return sendAndClassify(context, jsonRequest(payload.url, payload.body), {
      // A deleted or disabled flow answers 404; a bad signature 401/403.
      gone: (answer) => answer.status === 404 || answer.status === 401 || answer.status === 403,
    });
  },
});
