import type { ChannelContext, SendResult } from "../channel.js";
import { classifyAnswer, type ClassifyOptions } from "../answer.js";
import type { HttpRequest } from "../transport.js";

/** Severity colours shared by the services that take one (Discord, Slack attachments, Teams). */
export const SEVERITY_COLORS: Record<string, number> = {
  critical: 0xb00020,
  high: 0xe8590c,
  medium: 0xf59f00,
  low: 0x1c7ed6,
  info: 0x868e96,
};

export function severityColor(severity: string | undefined): number {
  return SEVERITY_COLORS[severity ?? "info"] ?? 0x868e96;
}

/** A JSON POST (or PUT) request. */
export function jsonRequest(url: string, body: unknown, headers: Record<string, string> = {}, method: HttpRequest["method"] = "POST"): HttpRequest {
  return { method, url, headers: { "content-type": "application/json; charset=utf-8", "user-agent": "driftwatch-notify", ...headers }, body: JSON.stringify(body) };
}

/** Sends one request and classifies the answer. */
export async function sendAndClassify(context: ChannelContext, request: HttpRequest, classify: ClassifyOptions = {}): Promise<SendResult> {
  const answer = await context.http({ ...request, url: context.endpoint(request.url) });
  return classifyAnswer(answer, classify);
}

/**
 * Fits a message into a service's limit by listing fewer changes: `render(n)` renders with the
 * first `n` changes (the rest counted in "and N more"), `fits` checks the limit. Returns the
 * largest rendering that fits, or the one with no change listed.
 */
export function fitChanges<T>(count: number, render: (listed: number) => T, fits: (rendered: T) => boolean): T {
  for (let listed = count; listed > 0; listed -= 1) {
    const rendered = render(listed);
    if (fits(rendered)) return rendered;
  }
  return render(0);
}

export function jsonSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}
