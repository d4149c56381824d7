import { channelRouteFor, newId, type ChannelDeliveryRecord, type ChannelPatch, type ChannelRecord, type SecretBox, type Store } from "@driftwatch/core";
import { createTestNotification, isNotifyError, type Notifier, type SendResult } from "@driftwatch/notify";
import {
  ChannelCreateSchema,
  ChannelDeliveryDetailSchema,
  ChannelDeliverySchema,
  ChannelSchema,
  ChannelTestResultSchema,
  ChannelUpdateSchema,
  idSchema,
  MonitorChannelsSchema,
  PageQuerySchema,
  pageSchema,
  type Channel,
  type ChannelDelivery,
  type ChannelDeliveryDetail,
  type ChannelTestResult,
  type MonitorChannels,
} from "@driftwatch/schema";
import { MAX_CHANNELS } from "@driftwatch/engine";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireSecretBox } from "../config/secret-key.js";
import { authOf, requireScope } from "../http/auth.js";
import { withIdempotency } from "../http/idempotency.js";
import { ApiError, notFound } from "../http/problem.js";
import { optionalBody } from "../http/validation.js";
import { actorOf, audit, type PeopleContext } from "../people/context.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, pageOf, problems, security } from "./common.js";

const ChannelParams = z.strictObject({ id: idSchema("channel") });
const ChannelDeliveryParams = z.strictObject({ id: idSchema("channel"), deliveryId: idSchema("channelDelivery") });

/** The seal's context: a sealed URL opens only for the channel it was sealed for. */
export function channelSecretContext(channelId: string): string {
  return `channel:${channelId}`;
}

/** A channel as the API answers: the URL masked, never the sealed value. */
export function presentChannel(c: ChannelRecord): Channel {
  return {
    id: c.id,
    name: c.name,
    service: c.service,
    url: c.urlMasked,
    minSeverity: c.minSeverity,
    tags: c.tags,
    events: c.events,
    groupSeconds: c.groupSeconds,
    quietHours: c.quietHours,
    template: c.template,
    paused: c.paused,
    status: c.status,
    statusReason: c.statusReason,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function presentChannelDelivery(d: ChannelDeliveryRecord): ChannelDelivery {
  return {
    id: d.id,
    channelId: d.channelId,
    eventType: d.eventType,
    monitorId: d.monitorId,
    diffId: d.diffId,
    state: d.state,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    lastAttemptAt: d.lastAttemptAt,
    lastResponseStatus: d.lastResponseStatus,
    lastError: d.lastError,
    createdAt: d.createdAt,
  };
}

/** Parses a channel URL: `422 invalid_channel_url` naming the problem (never the secret). */
function parseChannelUrl(notifier: Notifier, url: string): { service: string; masked: string } {
  // a URL as the API shows it: its secrets are gone, so it can only be a mistake
  if (url.includes("***")) {
    const message = "the URL holds a masked secret (***): send the whole URL, or leave url out to keep the stored one";
    throw new ApiError("invalid_channel_url", `The channel URL is refused: ${message}`, { errors: [{ path: "url", message }] });
  }
  try {
    const config = notifier.parse(url);
    return { service: config.service, masked: notifier.maskUrl(url.trim()) };
  } catch (error) {
    if (!isNotifyError(error)) throw error;
    const detail = error.details?.[0];
    throw new ApiError("invalid_channel_url", `The channel URL is refused: ${error.message}`, {
      errors: [{ path: detail === undefined ? "url" : `url${detail.path === "url" ? "" : ` (${detail.path})`}`, message: detail?.message ?? error.message }],
    });
  }
}

/**
 * Compiles a template and, with the channel's URL, renders the sample change with it as the
 * service's message (a JSON channel's template must render JSON): `422 invalid_template` naming
 * the error.
 */
function checkTemplate(notifier: Notifier, template: string | null | undefined, url?: string): void {
  if (template === null || template === undefined || template === "") return;
  const refuse = (message: string): ApiError => new ApiError("invalid_template", `The template is refused: ${message}`, { errors: [{ path: "template", message }] });
  let compiled;
  try {
    compiled = notifier.compileTemplate(template);
  } catch (error) {
    if (!isNotifyError(error)) throw error;
    throw refuse(error.message);
  }
  if (url === undefined) return;
  try {
    notifier.format(url, createTestNotification(new Date(0)), { template: compiled });
  } catch (error) {
    if (!isNotifyError(error)) throw error;
    // other refusals of the sample are not the template's doing (the URL is checked on its own)
    if (error.code === "invalid_template") throw refuse(error.message);
  }
}

/**
 * Stores `channel`'s URL sealed under the current key when it was sealed under an older one (a
 * rotation), only while the stored value is the one read. Best effort: a failure is tried again at
 * the next send.
 */
export async function resealChannelUrl(store: Pick<Store, "updateChannel">, box: SecretBox, channel: ChannelRecord, url: string, now: Date): Promise<void> {
  if (!box.needsReseal(channel.urlSealed)) return;
  await store
    .updateChannel(channel.orgId, channel.id, { urlSealed: box.seal(url, channelSecretContext(channel.id)), ifUrlSealed: channel.urlSealed, updatedAt: now.toISOString() })
    .catch(() => undefined);
}

/** What the service answered, as the test endpoint reports it. */
export function testResultOf(result: SendResult): ChannelTestResult {
  return {
    outcome: result.outcome,
    status: result.status ?? null,
    reason: result.outcome === "delivered" ? null : result.reason,
    retryAfterSeconds: result.outcome === "retry" && result.afterSeconds !== undefined ? result.afterSeconds : null,
  };
}

export function registerChannelRoutes(app: FastifyInstance, deps: AppDependencies, people: PeopleContext, notifier: Notifier, now: () => Date): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const tags = ["channels"];
  /** How many channels the organization has, counted up to `upTo` (bounded reads). */
  const countChannels = async (orgId: string, upTo: number): Promise<number> => {
    let count = 0;
    let cursor: string | null = null;
    do {
      const page = await store.listChannels(orgId, { limit: 100, cursor });
      count += page.data.length;
      cursor = page.nextCursor;
    } while (cursor !== null && count < upTo);
    return count;
  };
  const record = (request: FastifyRequest, orgId: string, action: string, channel: ChannelRecord, data: Record<string, unknown> = {}) =>
    audit(people, request, orgId, actorOf(authOf(request)), action, channel.id, { name: channel.name, service: channel.service, ...data });

  r.post(
    "/api/channels",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Add a notification channel",
        description:
          "The channel is one URL in Apprise's syntax (`slack://`, `discord://`, `tgram://`, `mailtos://`, ...) or a provider's own webhook URL. The URL is sealed with the server key; answers show it with every secret as `***`.",
        body: ChannelCreateSchema,
        response: { 201: ChannelSchema, ...problems(409, 413, 415, 422, 503) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const body = request.body;
      return withIdempotency(store, request, reply, orgId, now(), async () => {
        const parsed = parseChannelUrl(notifier, body.url);
        checkTemplate(notifier, body.template, body.url.trim());
        const box = requireSecretBox(deps.secrets);
        // messages are routed to an organization's first MAX_CHANNELS channels: no more can be made
        if ((await countChannels(orgId, MAX_CHANNELS)) >= MAX_CHANNELS) {
          throw new ApiError("conflict", `An organization has at most ${String(MAX_CHANNELS)} notification channels; delete one first.`);
        }
        const id = newId("channel");
        const channel = await store.createChannel(orgId, {
          id,
          name: body.name,
          service: parsed.service,
          urlSealed: box.seal(body.url.trim(), channelSecretContext(id)),
          urlMasked: parsed.masked,
          minSeverity: body.minSeverity,
          tags: body.tags,
          events: [...new Set(body.events)],
          groupSeconds: body.groupSeconds,
          quietHours: body.quietHours,
          template: body.template === "" ? null : body.template,
          paused: false,
        });
        await record(request, orgId, "channel.created", channel);
        return { status: 201, body: presentChannel(channel) };
      });
    },
  );

  r.get(
    "/api/channels",
    {
      config: { scope: "webhooks:read" },
      schema: { tags, security, summary: "List notification channels", querystring: PageQuerySchema, response: { 200: pageSchema(ChannelSchema), ...problems() } },
    },
    async (request) => {
      const page = await store.listChannels(authOf(request).orgId, pageOf(request.query));
      return { data: page.data.map(presentChannel), nextCursor: page.nextCursor };
    },
  );

  r.get(
    "/api/monitors/:id/channels",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        security,
        summary: "The notification channels a monitor's events reach",
        description:
          "Each channel whose tags name one of the monitor's (or that names none: every monitor), with the events it takes, the lowest severity of a change that reaches it (its `minSeverity` or the monitor policy's `notify.minSeverity`, the higher) and its state: a `paused` channel gets nothing, a `failing` one keeps its messages until it is fixed. Needs `monitors:read` too.",
        params: MonitorParams,
        response: { 200: MonitorChannelsSchema, ...problems(404) },
      },
    },
    async (request): Promise<MonitorChannels> => {
      const auth = authOf(request);
      requireScope(auth, "monitors:read");
      const monitor = await store.getMonitor(auth.orgId, request.params.id);
      if (monitor === null) throw notFound("monitor");
      const settings = await store.getSettings(auth.orgId, monitor.id);
      // a monitor with alert conditions notifies by them alone: the policy's notify.minSeverity does not apply
      const policyMinSeverity = settings?.alert != null ? undefined : settings?.policyRulesJson?.notify?.minSeverity;
      const data: MonitorChannels["data"] = [];
      let cursor: string | null = null;
      // the channels the engine routes to: the first MAX_CHANNELS
      let read = 0;
      do {
        const page = await store.listChannels(auth.orgId, { limit: 100, cursor });
        for (const channel of page.data) {
          const route = channelRouteFor(channel, monitor.tags ?? [], policyMinSeverity);
          if (route !== null) data.push({ channel: presentChannel(channel), ...route });
        }
        cursor = page.nextCursor;
        read += page.data.length;
      } while (cursor !== null && read < MAX_CHANNELS);
      return { data, policyMinSeverity: policyMinSeverity ?? null };
    },
  );

  r.get(
    "/api/channels/:id",
    {
      config: { scope: "webhooks:read" },
      schema: { tags, security, summary: "Get a notification channel", params: ChannelParams, response: { 200: ChannelSchema, ...problems(404) } },
    },
    async (request) => {
      const channel = await store.getChannel(authOf(request).orgId, request.params.id);
      if (channel === null) throw notFound("channel");
      return presentChannel(channel);
    },
  );

  r.patch(
    "/api/channels/:id",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Update a notification channel",
        description: "A new `url` is sealed again. A new `url`, or `paused: false`, also clears a `failing` status (the hook was fixed): its held messages are sent.",
        params: ChannelParams,
        body: ChannelUpdateSchema,
        response: { 200: ChannelSchema, ...problems(404, 413, 415, 422, 503) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const current = await store.getChannel(orgId, request.params.id);
      if (current === null) throw notFound("channel");
      // the channel as read, sent back with its masked URL: the stored URL stays
      const sentBack = request.body.url !== undefined && current.urlMasked.includes("***") && request.body.url.trim() === current.urlMasked;
      const body = sentBack ? { ...request.body, url: undefined } : request.body;
      const patch: ChannelPatch = { updatedAt: now().toISOString() };
      if (body.url !== undefined) {
        const parsed = parseChannelUrl(notifier, body.url);
        const box = requireSecretBox(deps.secrets);
        patch.service = parsed.service;
        patch.urlSealed = box.seal(body.url.trim(), channelSecretContext(current.id));
        patch.urlMasked = parsed.masked;
      }
      if (body.template !== undefined || body.url !== undefined) {
        // the template the channel will have, rendered for the URL it will have
        let url: string | undefined = body.url?.trim();
        if (url === undefined && deps.secrets?.box) {
          try {
            url = deps.secrets.box.open(current.urlSealed, channelSecretContext(current.id));
          } catch {
            url = undefined; // a key that is gone: the template is compiled only
          }
        }
        checkTemplate(notifier, body.template !== undefined ? body.template : current.template, url);
      }
      if (body.template !== undefined) patch.template = body.template === "" ? null : body.template;
      if (body.name !== undefined) patch.name = body.name;
      if (body.minSeverity !== undefined) patch.minSeverity = body.minSeverity;
      if (body.tags !== undefined) patch.tags = body.tags;
      if (body.events !== undefined) patch.events = [...new Set(body.events)];
      if (body.groupSeconds !== undefined) patch.groupSeconds = body.groupSeconds;
      if (body.quietHours !== undefined) patch.quietHours = body.quietHours;
      if (body.paused !== undefined) patch.paused = body.paused;
      if (body.url !== undefined || body.paused === false) {
        patch.status = "ok";
        patch.statusReason = null;
      }
      const updated = await store.updateChannel(orgId, current.id, patch);
      if (updated === null) throw notFound("channel");
      // Which fields changed, never their values (a URL holds secrets).
      const changed = Object.keys(body).filter((key) => (body as Record<string, unknown>)[key] !== undefined);
      await record(request, orgId, "channel.updated", updated, { changed });
      return presentChannel(updated);
    },
  );

  r.delete(
    "/api/channels/:id",
    {
      config: { scope: "webhooks:write" },
      schema: { tags, security, summary: "Delete a notification channel and its messages", params: ChannelParams, response: { 204: z.null(), ...problems(404) } },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const channel = await store.getChannel(orgId, request.params.id);
      if (channel === null || !(await store.deleteChannel(orgId, channel.id))) throw notFound("channel");
      await record(request, orgId, "channel.deleted", channel);
      return reply.code(204).send(null);
    },
  );

  r.post(
    "/api/channels/:id/test",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Send a test message now",
        description:
          "Sends a sample change (with the channel's template) straight to the service, bypassing the outbox, and answers what the service said: `delivered`, `retry` (rate limited or unavailable, with the wait it asked for), `gone` (the hook, bot or chat no longer exists) or `failed` (refused, with its reason).",
        params: ChannelParams,
        body: optionalBody(z.strictObject({})),
        response: { 200: ChannelTestResultSchema, ...problems(404, 422, 503) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const channel = await store.getChannel(orgId, request.params.id);
      if (channel === null) throw notFound("channel");
      const box = requireSecretBox(deps.secrets);
      const url = box.open(channel.urlSealed, channelSecretContext(channel.id));
      // a URL sealed under an older key moves to the current one (a way to finish a rotation)
      await resealChannelUrl(store, box, channel, url, now());
      let result: SendResult;
      try {
        result = await notifier.send(url, createTestNotification(now()), { template: channel.template ?? undefined });
      } catch (error) {
        // the message could not be made (a template stored before its output was checked): nothing was sent
        if (!isNotifyError(error)) throw error;
        if (error.code === "invalid_template") throw new ApiError("invalid_template", `The channel's template is refused: ${error.message}`, { errors: [{ path: "template", message: error.message }] });
        result = { outcome: "failed", reason: `${error.code}: ${error.message}` };
      }
      const answer = testResultOf(result);
      await record(request, orgId, "channel.tested", channel, { outcome: answer.outcome, status: answer.status });
      return answer;
    },
  );

  r.get(
    "/api/channels/:id/deliveries",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        security,
        summary: "The messages of a channel, newest first",
        description: "Pending ones wait for their time: a retry, the end of a grouping window or of quiet hours.",
        params: ChannelParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(ChannelDeliverySchema), ...problems(404) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      if ((await store.getChannel(orgId, request.params.id)) === null) throw notFound("channel");
      const page = await store.listChannelDeliveries(orgId, request.params.id, pageOf(request.query));
      return { data: page.data.map(presentChannelDelivery), nextCursor: page.nextCursor };
    },
  );

  r.get(
    "/api/channels/:id/deliveries/:deliveryId",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        security,
        summary: "One message with the notification it sends and every attempt",
        params: ChannelDeliveryParams,
        response: { 200: ChannelDeliveryDetailSchema, ...problems(404) },
      },
    },
    async (request): Promise<ChannelDeliveryDetail> => {
      const { orgId } = authOf(request);
      const delivery = await store.getChannelDelivery(orgId, request.params.id, request.params.deliveryId);
      if (delivery === null) throw notFound("delivery");
      const attempts = await store.listChannelDeliveryAttempts(orgId, delivery.id);
      let payload: unknown;
      try {
        payload = JSON.parse(delivery.payload);
      } catch {
        payload = delivery.payload;
      }
      return {
        ...presentChannelDelivery(delivery),
        payload,
        attemptLog: attempts.map((a) => ({ attempt: a.attempt, at: a.at, responseStatus: a.responseStatus, error: a.error, durationMs: a.durationMs })),
      };
    },
  );

  r.post(
    "/api/channels/:id/deliveries/:deliveryId/retry",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Send one message again (also a failed one)",
        description: "Makes the message pending and due now (202); the delivery worker sends it on its next run.",
        params: ChannelDeliveryParams,
        body: optionalBody(z.strictObject({})),
        response: { 202: ChannelDeliverySchema, ...problems(404) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const delivery = await store.requeueChannelDelivery(orgId, request.params.id, request.params.deliveryId, now().toISOString());
      if (delivery === null) throw notFound("delivery");
      const channel = await store.getChannel(orgId, request.params.id);
      if (channel !== null) await record(request, orgId, "channel.delivery_replayed", channel, { deliveryId: delivery.id, eventType: delivery.eventType });
      return reply.code(202).send(presentChannelDelivery(delivery));
    },
  );
}
