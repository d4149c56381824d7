import type { SendResult } from "./channel.js";
import type { HttpAnswer } from "./transport.js";
import { oneLine, truncate } from "./text.js";

/** The answer's body as JSON, or undefined. */
export function answerJson(answer: HttpAnswer): Record<string, unknown> | undefined {
  // Only an object is wanted: a body that cannot be one (Slack's "ok", an HTML error page) is not
  // parsed (a thrown SyntaxError per answer cost more than the rest of reading it).
  if (!/^\s*\{/.test(answer.body)) return undefined;
  try {
    const value: unknown = JSON.parse(answer.body);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A short reason from the service's answer: its JSON message/description/error, or its text. */
export function answerReason(answer: HttpAnswer, json = answerJson(answer)): string {
  const pick = (value: unknown): string | undefined => {
    if (typeof value === "string" && value !== "") return value;
    if (Array.isArray(value)) {
      const texts = value.map((v) => (typeof v === "string" ? v : typeof v === "object" && v !== null ? JSON.stringify(v) : "")).filter(Boolean);
      return texts.length > 0 ? texts.join("; ") : undefined;
    }
    if (typeof value === "object" && value !== null) {
      const inner = value as Record<string, unknown>;
      return pick(inner["message"]) ?? pick(inner["status"]);
    }
    return undefined;
  };
  const primary =
    json &&
    (pick(json["description"]) ??
      pick(json["errorDescription"]) ??
      pick(json["message"]) ??
      pick(json["error_description"]) ??
      pick(json["error"]) ??
      pick(json["errcode"]) ??
      pick(json["result"]));
  const list = json !== undefined && Array.isArray(json["errors"]) ? pick(json["errors"]) : undefined;
  const text = primary !== undefined || list !== undefined ? [primary, list].filter((t) => t !== undefined).join(": ") : answer.body;
  const reason = truncate(oneLine(text), 300);
  return reason === "" ? `HTTP ${answer.status}` : `HTTP ${answer.status}: ${reason}`;
}

/** Seconds from a `Retry-After` header (delta seconds or an HTTP date). */
export function retryAfterHeader(value: string | undefined, now: Date = new Date()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}

/** Seconds to wait: `Retry-After`, else the body's `retry_after` (Discord, Telegram) or `retry_after_ms` (Matrix). */
export function retryAfter(answer: HttpAnswer, json = answerJson(answer), now?: Date): number | undefined {
  const header = retryAfterHeader(answer.headers["retry-after"], now);
  if (header !== undefined) return header;
  const seconds = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.ceil(value) : undefined);
  if (json === undefined) return undefined;
  const parameters = json["parameters"];
  return (
    seconds(json["retry_after"]) ??
    (typeof parameters === "object" && parameters !== null ? seconds((parameters as Record<string, unknown>)["retry_after"]) : undefined) ??
    (typeof json["retry_after_ms"] === "number" ? seconds((json["retry_after_ms"] as number) / 1000) : undefined)
  );
}

export interface ClassifyOptions {
  /** Returns a reason when the answer means the destination is gone. */
  gone?: (answer: HttpAnswer, json: Record<string, unknown> | undefined) => boolean;
  /** A 2xx that still failed (Slack's `ok: false`, Telegram's `ok: false`): return the failing result. */
  okButFailed?: (answer: HttpAnswer, json: Record<string, unknown> | undefined) => SendResult | undefined;
  /** 4xx statuses that are worth retrying besides 408 and 429. */
  retryStatuses?: readonly number[];
}

/**
 * The common reading of an HTTP answer: 2xx delivered; 429, 408 and 5xx retry (after the
 * service's `Retry-After`/`retry_after`); 410 and the channel's own gone answers gone; any other
 * status failed with the service's reason.
 */
export function classifyAnswer(answer: HttpAnswer, options: ClassifyOptions = {}): SendResult {
  const json = answerJson(answer);
  const status = answer.status;
  if (status >= 200 && status < 300) {
    const failed = options.okButFailed?.(answer, json);
    return failed ?? { outcome: "delivered", status };
  }
  if (status === 429 || status === 408 || status >= 500 || options.retryStatuses?.includes(status) === true) {
    return { outcome: "retry", afterSeconds: retryAfter(answer, json), status, reason: answerReason(answer, json) };
  }
  if (status === 410 || options.gone?.(answer, json) === true) return { outcome: "gone", status, reason: answerReason(answer, json) };
  return { outcome: "failed", status, reason: answerReason(answer, json) };
}

const RANK: Record<SendResult["outcome"], number> = { delivered: 0, gone: 1, failed: 2, retry: 3 };

/**
 * One result for a message sent to several targets (Telegram chats, Slack channels): delivered
 * when all were; otherwise the answer that needs the most care: retry (the longest wait), then
 * failed, then gone.
 */
export function combineResults(results: readonly SendResult[]): SendResult {
  let worst: SendResult = { outcome: "delivered" };
  for (const result of results) {
    if (RANK[result.outcome] > RANK[worst.outcome]) worst = result;
    else if (result.outcome === "retry" && worst.outcome === "retry" && (result.afterSeconds ?? 0) > (worst.afterSeconds ?? 0)) worst = result;
  }
  if (worst.outcome === "delivered" && results.length > 0) return results[results.length - 1] as SendResult;
  return worst;
}
