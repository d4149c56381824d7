import { answerJson, answerReason, classifyAnswer, combineResults } from "../answer.js";
import { defineChannel, type SendResult } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeLine, changeValues, type MessageModel } from "../notification.js";
import { cutHtml, escapeHtml, shrinkToFit, truncate } from "../text.js";
import { origin, parseAppriseUrl, requireHost, splitList } from "../url.js";
import { fitChanges, jsonRequest } from "./shared.js";
import type { HttpAnswer } from "../transport.js";

// Matrix client-server API (https://spec.matrix.org/v1.11/client-server-api/): log in with a
// password (POST /login) or use an access token, join each room (POST /join/{roomIdOrAlias},
// which also resolves an alias), then PUT an m.room.message event (m.notice) with a plain `body`
// and an HTML `formatted_body` (org.matrix.custom.html). The transaction id is the message id,
// so a retried send is not posted twice. An event is at most 65 536 bytes.

export interface MatrixOptions {
  baseUrl: string;
  user: string | undefined;
  password: string | undefined;
  accessToken: string | undefined;
  /** `!roomid:server` or `#alias:server`. */
  rooms: string[];
  msgtype: "m.notice" | "m.text";
}

export const MATRIX_LIMITS = { contentBytes: 60_000 } as const;

export interface MatrixPayload {
  txnId: string;
  content: Record<string, unknown>;
}

export function matrixContent(message: MessageModel, body: { html: string; plain: string } | undefined, msgtype: string): Record<string, unknown> {
  const renderWith = (body: { html: string; plain: string } | undefined, listed: number): Record<string, unknown> => {
    const more = message.more + (message.changes.length - listed);
    const plain = [message.title];
    const html = [`<strong>${escapeHtml(message.title)}</strong>`];
    if (body !== undefined) {
      plain.push(body.plain);
      html.push(body.html);
    } else {
      plain.push(`${message.classificationLabel}: ${message.summary}`);
      html.push(`<p>${escapeHtml(message.classificationLabel)}: ${escapeHtml(message.summary)}</p>`);
      const items = message.changes.slice(0, listed);
      plain.push(...items.map((c) => `- ${changeLine(c)}`));
      if (items.length > 0) {
        html.push(`<ul>${items.map((c) => `<li><strong>${escapeHtml(c.severity)}</strong> <code>${escapeHtml(c.path)}</code> ${escapeHtml(changeValues(c).trim())}</li>`).join("")}</ul>`);
      }
      if (more > 0) {
        plain.push(`and ${more} more`);
        html.push(`<p><em>and ${more} more</em></p>`);
      }
    }
    if (message.link !== undefined) {
      plain.push(message.link);
      html.push(`<p><a href="${escapeHtml(message.link)}">${message.event === "diff.detected" ? "View diff" : "View monitor"}</a></p>`);
    }
    return { msgtype, body: plain.join("\n"), format: "org.matrix.custom.html", formatted_body: html.join("") };
  };
  const fits = (c: Record<string, unknown>): boolean => Buffer.byteLength(JSON.stringify(c)) <= MATRIX_LIMITS.contentBytes;
  if (body !== undefined) {
    // A template's output: cut the plain and the HTML body alike until the event fits.
    return shrinkToFit(body.html, (html) => renderWith({ html, plain: truncate(body.plain, Math.max(html.length, 1)) }, 0), fits, cutHtml);
  }
  return fitChanges(message.changes.length, (listed) => renderWith(undefined, listed), fits);
}

function gone(answer: HttpAnswer, json: Record<string, unknown> | undefined): boolean {
  const code = json?.["errcode"];
  return answer.status === 401 || answer.status === 403 || answer.status === 404 || code === "M_UNKNOWN_TOKEN" || code === "M_FORBIDDEN" || code === "M_NOT_FOUND";
}

export const matrixChannel = defineChannel<MatrixOptions, MatrixPayload>({
  service: "matrix",
  title: "Matrix",
  schemes: ["matrix", "matrixs"],
  parse(raw) {
    const service = "matrix";
    const parts = parseAppriseUrl(raw, service);
    if (parts.path.length === 0 && parts.user === undefined) {
      throw invalidUrl(service, "url", "t2bot webhook mode (matrix://TOKEN) is not supported; use matrixs://USER:PASSWORD@HOST/#room or matrixs://TOKEN@HOST/#room");
    }
    requireHost(service, parts.host);
    const mode = parts.query["mode"];
    if (mode !== undefined && mode !== "" && mode.toLowerCase() !== "off" && mode.toLowerCase() !== "matrix") {
      throw invalidUrl(service, "query.mode", `mode=${mode.slice(0, 20)} (a webhook bridge) is not supported; use the client-server API`);
    }
    const server = parts.host;
    const rooms = [...parts.path, ...splitList(parts.query["to"])].map((room, index) => {
      const value = room.startsWith("!") || room.startsWith("#") ? room : `#${room}`;
      if (value.startsWith("@")) throw invalidUrl(service, `rooms[${index}]`, "direct messages to a user are not supported; name a room");
      if (!/^[!#][^\s:]+(:[A-Za-z0-9.-]+(:\d+)?)?$/.test(value)) throw invalidUrl(service, `rooms[${index}]`, "a room is !roomid:server or #alias[:server]");
      return value.includes(":") ? value : `${value}:${server}`;
    });
    if (rooms.length === 0) throw invalidUrl(service, "rooms", "at least one room is required: matrixs://USER:PASSWORD@HOST/#room");
    const msgtype = (parts.query["msgtype"] ?? "notice").toLowerCase() === "text" ? "m.text" : "m.notice";
    const baseUrl = origin(parts.scheme === "matrixs", parts.host, parts.port);
    if (parts.password !== undefined && parts.user !== undefined) {
      return { options: { baseUrl, user: parts.user, password: parts.password, accessToken: undefined, rooms, msgtype }, secrets: ["password"] };
    }
    const token = parts.user ?? parts.query["token"];
    if (token === undefined) throw invalidUrl(service, "token", "an access token or user:password is required");
    return { options: { baseUrl, user: undefined, password: undefined, accessToken: token, rooms, msgtype }, secrets: ["accessToken"] };
  },
  format(message, options, context, notification) {
    const html = context.renderTemplate(escapeHtml);
    const plain = context.renderTemplate((t) => t);
    return { txnId: `dw-${notification.id}`, content: matrixContent(message, html === undefined || plain === undefined ? undefined : { html, plain }, options.msgtype) };
  },
  async send(payload, options, context) {
    const api = (path: string): string => context.endpoint(`${options.baseUrl}/_matrix/client/v3${path}`);
    let token = options.accessToken;
    if (token === undefined) {
      const login = await context.http(
        jsonRequest(api("/login"), { type: "m.login.password", identifier: { type: "m.id.user", user: options.user }, password: options.password, initial_device_display_name: "driftwatch" }),
      );
      const json = answerJson(login);
      if (login.status === 403 || login.status === 401) return { outcome: "gone", status: login.status, reason: `login failed: ${answerReason(login, json)}` };
      if (login.status < 200 || login.status >= 300 || typeof json?.["access_token"] !== "string") {
        const result = classifyAnswer(login);
        return result.outcome === "delivered" ? { outcome: "failed", status: login.status, reason: "login answered no access_token" } : result;
      }
      token = json["access_token"] as string;
    }
    const headers = { authorization: `Bearer ${token}` };
    const results: SendResult[] = [];
    for (const room of options.rooms) {
      const join = await context.http(jsonRequest(api(`/join/${encodeURIComponent(room)}`), {}, headers));
      const joined = answerJson(join);
      if (join.status < 200 || join.status >= 300 || typeof joined?.["room_id"] !== "string") {
        const result = classifyAnswer(join, { gone });
        results.push(result.outcome === "delivered" ? { outcome: "failed", status: join.status, reason: "join answered no room_id" } : result);
        continue;
      }
      const roomId = joined["room_id"] as string;
      const answer = await context.http(
        jsonRequest(api(`/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${encodeURIComponent(payload.txnId)}`), payload.content, headers, "PUT"),
      );
      results.push(classifyAnswer(answer, { gone }));
    }
    if (options.accessToken === undefined) await context.http(jsonRequest(api("/logout"), {}, headers)).catch(() => undefined);
    return combineResults(results);
  },
});
