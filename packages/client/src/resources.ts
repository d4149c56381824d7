import type {
  Channel,
  ChannelCreate,
  ChannelDelivery,
  ChannelDeliveryDetail,
  ChannelTestResult,
  ChannelUpdate,
  CheckResult,
  ComparePolicy,
  Delivery,
  DeliveryDetail,
  Diff,
  DiffListQuery,
  InferredSchema,
  Monitor,
  MonitorChannels,
  MonitorCreate,
  MonitorListQuery,
  MonitorUpdate,
  NoiseProfile,
  Page,
  Settings,
  SettingsPreview,
  SettingsPreviewRequest,
  SettingsUpdate,
  Snapshot,
  SnapshotCompare,
  Secret,
  SecretCreate,
  SecretList,
  StepsRunResult,
  BrowserRunRequest,
  InspectResult,
  Token,
  TokenCreate,
  TrackedValueReading,
  AlertPreview,
  AlertPreviewRequest,
  Webhook,
  WebhookCreate,
  WebhookUpdate,
  WorkerRunRequest,
  WorkerRunResult,
} from "@driftwatch/schema";
import type { APIPromise, BinaryBody, HttpCore, RequestOptions } from "./core.js";
import { PagePromise } from "./pagination.js";
import type {
  AuditEntry,
  Invite,
  InviteAcceptRequest,
  InviteCreate,
  InviteCreated,
  InviteLookup,
  Me,
  Member,
  MemberUpdate,
  Org,
  OrgUpdate,
  PasswordChangeRequest,
  Session,
  SetupRequest,
  SetupStatus,
  SignInRequest,
} from "@driftwatch/schema";

export interface ListParams {
  /** 1..100, default 20. */
  limit?: number;
  /** Start after this cursor (from a previous page's `nextCursor`). */
  cursor?: string;
}

const seg = (value: string): string => encodeURIComponent(value);

abstract class Resource {
  protected readonly http: HttpCore;
  constructor(http: HttpCore) {
    this.http = http;
  }
  protected paged<T>(path: string, params: object | undefined, options?: RequestOptions): PagePromise<T> {
    const query = { ...(params ?? {}) } as Record<string, string | number | boolean | undefined>;
    return new PagePromise<T>((cursor) =>
      this.http.request<Page<T>>({ method: "GET", path, query: cursor === undefined ? query : { ...query, cursor }, options }),
    );
  }
}

/** `tag`: only monitors with that tag (trimmed and lower-cased by the server). */
export type MonitorListParams = ListParams & Omit<MonitorListQuery, "limit" | "cursor">;

export class Monitors extends Resource {
  create(body: MonitorCreate, options?: RequestOptions): APIPromise<Monitor> {
    return this.http.request({ method: "POST", path: "/api/monitors", body, options });
  }
  /** Newest first; `{ tag }` keeps the monitors that have that tag. */
  list(params?: MonitorListParams, options?: RequestOptions): PagePromise<Monitor> {
    return this.paged<Monitor>("/api/monitors", params, options);
  }
  get(monitorId: string, options?: RequestOptions): APIPromise<Monitor> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}`, options });
  }
  update(monitorId: string, body: MonitorUpdate, options?: RequestOptions): APIPromise<Monitor> {
    return this.http.request({ method: "PATCH", path: `/api/monitors/${seg(monitorId)}`, body, options });
  }
  delete(monitorId: string, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "DELETE", path: `/api/monitors/${seg(monitorId)}`, options });
  }
  /** Checks the monitor now: the latest snapshot and the new diff, or `diff: null` when nothing changed. */
  check(monitorId: string, options?: RequestOptions): APIPromise<CheckResult> {
    return this.http.request({ method: "POST", path: `/api/monitors/${seg(monitorId)}/check`, options });
  }
  /**
   * The noise profile: the policy learned from the monitor's recent snapshots, with evidence for
   * each entry. `samples < minSamples` means too few snapshots yet (the policy is then empty).
   * Apply it by hand with `settings.update(id, { policyRules: profile.policy })`, or let the
   * service merge it into every diff with `settings.update(id, { autoApplySuggestions: true })`.
   */
  noise(monitorId: string, options?: RequestOptions): APIPromise<NoiseProfile> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/noise`, options });
  }
  /**
   * Compares two stored snapshots again (nothing is stored): `policy: "effective"` (default) as a
   * check would now, `"user"` with the stored rules only (what the learned policy hid shows
   * again), `"none"` with no policy. A silenced check's snapshot names its pair
   * (`snapshot.silenced.previousSnapshotId`, `snapshot.id`); a diff as `previousSnapshotId`, `snapshotId`.
   */
  compare(monitorId: string, params: { from: string; to: string; policy?: ComparePolicy }, options?: RequestOptions): APIPromise<SnapshotCompare> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/compare`, query: { ...params }, options });
  }
  /**
   * Runs browser steps on `url` without saving anything: each step run (ok, ms, error) up to the
   * first that failed, and a screenshot of the page (a data URL). Rate limited as an expensive call.
   */
  runSteps(body: BrowserRunRequest, options?: RequestOptions): APIPromise<StepsRunResult> {
    return this.http.request({ method: "POST", path: "/api/monitors/steps/run", body, options });
  }
  /** The page when the monitor's latest failed browser step failed (a 404 error when none failed). */
  failureScreenshot(monitorId: string, options?: RequestOptions): APIPromise<BinaryBody> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/failure-screenshot`, responseType: "bytes", options });
  }
  /** Renders `url` (steps included) and lists its visible blocks with unique selectors and boxes on the screenshot. */
  inspect(body: BrowserRunRequest, options?: RequestOptions): APIPromise<InspectResult> {
    return this.http.request({ method: "POST", path: "/api/monitors/inspect", body, options });
  }
  /**
   * Readings of one tracked value (`settings.track`), newest first: `{ at, value, snapshotId }`,
   * `value` null with a `reason` when a check could not read it. Iterate to page through them all.
   */
  values(monitorId: string, name: string, params?: ListParams, options?: RequestOptions): PagePromise<TrackedValueReading> {
    return this.paged<TrackedValueReading>(`/api/monitors/${seg(monitorId)}/values`, { ...params, name }, options);
  }
  /**
   * Which past checks `alert` (default: the stored conditions) would have alerted on, replayed over
   * the recorded tracked values of the newest `limit` checks (default 100); newest first. Nothing is stored.
   */
  previewAlert(monitorId: string, body: AlertPreviewRequest = {}, options?: RequestOptions): APIPromise<AlertPreview> {
    return this.http.request({ method: "POST", path: `/api/monitors/${seg(monitorId)}/alert/preview`, body, options });
  }
  /**
   * The JSON Schema inferred from an api monitor's newest responses, its learned volatile members
   * marked `x-driftwatch-volatile: true` (docs/contracts.md).
   */
  schema(monitorId: string, options?: RequestOptions): APIPromise<InferredSchema> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/schema`, options });
  }
  /** The inferred JSON Schema alone, as the download (`?download=true`) serves it: a document to save or hand to a validator. */
  schemaDocument(monitorId: string, options?: RequestOptions): APIPromise<Record<string, unknown>> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/schema`, query: { download: "true" }, options });
  }
}

/** Secrets browser steps use by name (`"secret": "<name>"`); their values are never returned. */
export class Secrets extends Resource {
  create(body: SecretCreate, options?: RequestOptions): APIPromise<Secret> {
    return this.http.request({ method: "POST", path: "/api/secrets", body, options });
  }
  /** The organization's secrets, by name. */
  async list(options?: RequestOptions): Promise<Secret[]> {
    const page = await this.http.request<SecretList>({ method: "GET", path: "/api/secrets", options });
    return page.data;
  }
  delete(secretId: string, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "DELETE", path: `/api/secrets/${seg(secretId)}`, options });
  }
}

export type DiffListParams = ListParams & Omit<DiffListQuery, "limit" | "cursor">;

export class Diffs extends Resource {
  /** Change history, newest first. */
  list(monitorId: string, params?: DiffListParams, options?: RequestOptions): PagePromise<Diff> {
    return this.paged<Diff>(`/api/monitors/${seg(monitorId)}/diffs`, params, options);
  }
  get(monitorId: string, diffId: string, options?: RequestOptions): APIPromise<Diff> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/diffs/${seg(diffId)}`, options });
  }
}

export class Snapshots extends Resource {
  /** Snapshots without bodies, newest first. */
  list(monitorId: string, params?: ListParams, options?: RequestOptions): PagePromise<Snapshot> {
    return this.paged<Snapshot>(`/api/monitors/${seg(monitorId)}/snapshots`, params, options);
  }
  /** One snapshot with its body. */
  get(monitorId: string, snapshotId: string, options?: RequestOptions): APIPromise<Snapshot & { body: string }> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/snapshots/${seg(snapshotId)}`, options });
  }
  /** The screenshot taken with a snapshot (`type` is `image/png` or `image/webp`); a 404 error when none was taken. */
  screenshot(monitorId: string, snapshotId: string, options?: RequestOptions): APIPromise<BinaryBody> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/snapshots/${seg(snapshotId)}/screenshot`, responseType: "bytes", options });
  }
}

export class SettingsResource extends Resource {
  get(monitorId: string, options?: RequestOptions): APIPromise<Settings> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/settings`, options });
  }
  /**
   * `policyRules` replaces the whole rule set; `{ rules: [] }` clears it; omitted leaves it.
   * `autoApplySuggestions: true` merges the learned policy (`monitors.noise`) into future diffs,
   * after the stored rules (a user's rule always wins); new monitors start with their
   * organization's `learnNoiseByDefault` (true unless an admin changed it). `rejectedSuggestions`
   * replaces the learned entries never to apply again (`{ kind, path }` or `{ kind, selector }`).
   * `track` replaces the values each check records and `alert` the conditions that decide when a
   * check alerts (`null` removes them); see docs/conditions.md. Invalid ones are refused with
   * 422 `invalid_track` / `invalid_conditions`, each error naming its place (`alert.conditions[1].to`).
   * `learning` sets how the monitor starts learning its noise (`{ warmupSamples: 0..5,
   * learningSamples: 2..10 }`, an absent member or `null`: the server's `--warmup-samples` and
   * `--learning-samples`; see docs/signal.md, "Young monitors").
   */
  update(monitorId: string, body: SettingsUpdate, options?: RequestOptions): APIPromise<Settings> {
    return this.http.request({ method: "PATCH", path: `/api/monitors/${seg(monitorId)}/settings`, body, options });
  }
  /**
   * Re-runs the newest `limit` diffs (default 10, at most 20) under edited rules without storing
   * anything: per diff, the changes the rules would hide, add back or re-rate.
   */
  preview(monitorId: string, body: SettingsPreviewRequest, options?: RequestOptions): APIPromise<SettingsPreview> {
    return this.http.request({ method: "POST", path: `/api/monitors/${seg(monitorId)}/settings/preview`, body, options });
  }
}

/** One event of `GET /api/events/stream`. */
export type StreamEvent = { type: "ready"; requestId: string } | LiveEvent;

/** What an event stream delivers; `LiveEvent` minus `ready`. */
export type LiveEvent =
  | { type: "check"; monitor: Monitor; diff: Diff | null }
  | { type: "monitor"; monitor: Monitor }
  | { type: "delivery"; delivery: Delivery };

/** Server-sent events of the caller's organization, read with `fetch` (so the bearer token is sent; browsers included). */
export class Events extends Resource {
  /**
   * Opens the stream and yields its events until `signal` aborts or the server ends it (then the
   * iteration ends; reconnect and refetch what you show). Errors such as 401 are thrown as
   * `DriftwatchApiError` before the first event.
   *
   * ```ts
   * for await (const event of client.events.stream({ signal })) if (event.type === "check") ...
   * ```
   */
  async *stream(options: { signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
    const response = await this.http.openStream("/api/events/stream", options.signal);
    const body = response.body;
    if (body === null) return;
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value.replace(/\r\n?/g, "\n");
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const event = parseEventBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event !== null) yield event;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
}

/** One SSE block (`event:` / `data:` lines) as an event, or null for comments and unknown shapes. */
export function parseEventBlock(block: string): StreamEvent | null {
  const data: string[] = [];
  for (const line of block.split("\n")) if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  if (data.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(data.join("\n"));
    if (parsed !== null && typeof parsed === "object" && typeof (parsed as { type?: unknown }).type === "string") return parsed as StreamEvent;
  } catch {
    // not JSON: skip it
  }
  return null;
}

export class Webhooks extends Resource {
  /** The response carries `secret`, shown only here and on rotate. */
  create(body: WebhookCreate, options?: RequestOptions): APIPromise<Webhook & { secret: string }> {
    return this.http.request({ method: "POST", path: "/api/webhooks", body, options });
  }
  list(params?: ListParams, options?: RequestOptions): PagePromise<Webhook> {
    return this.paged<Webhook>("/api/webhooks", params, options);
  }
  get(webhookId: string, options?: RequestOptions): APIPromise<Webhook> {
    return this.http.request({ method: "GET", path: `/api/webhooks/${seg(webhookId)}`, options });
  }
  update(webhookId: string, body: WebhookUpdate, options?: RequestOptions): APIPromise<Webhook> {
    return this.http.request({ method: "PATCH", path: `/api/webhooks/${seg(webhookId)}`, body, options });
  }
  delete(webhookId: string, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "DELETE", path: `/api/webhooks/${seg(webhookId)}`, options });
  }
  /** A new secret; the old one keeps signing for 24 h. */
  rotateSecret(webhookId: string, options?: RequestOptions): APIPromise<Webhook & { secret: string }> {
    return this.http.request({ method: "POST", path: `/api/webhooks/${seg(webhookId)}/rotate-secret`, options });
  }
  /** The delivery log, newest first. */
  deliveries(webhookId: string, params?: ListParams, options?: RequestOptions): PagePromise<Delivery> {
    return this.paged<Delivery>(`/api/webhooks/${seg(webhookId)}/deliveries`, params, options);
  }
  /** One delivery with the event it sends (`payload`) and every attempt (`attemptLog`: response status, error, duration). */
  getDelivery(webhookId: string, deliveryId: string, options?: RequestOptions): APIPromise<DeliveryDetail> {
    return this.http.request({ method: "GET", path: `/api/webhooks/${seg(webhookId)}/deliveries/${seg(deliveryId)}`, options });
  }
  retryDelivery(webhookId: string, deliveryId: string, options?: RequestOptions): APIPromise<Delivery> {
    return this.http.request({
      method: "POST",
      path: `/api/webhooks/${seg(webhookId)}/deliveries/${seg(deliveryId)}/retry`,
      options,
    });
  }
  /** Runs the delivery worker now for your organization. */
  runWorker(body: WorkerRunRequest = {}, options?: RequestOptions): APIPromise<WorkerRunResult> {
    return this.http.request({ method: "POST", path: "/api/webhooks/worker/run", body, options });
  }
}

export class Channels extends Resource {
  /** Adds a channel from one Apprise URL (`slack://...`, `discord://...`, `mailtos://...`) or a provider's webhook URL; answers it with the URL's secrets masked. */
  create(body: ChannelCreate, options?: RequestOptions): APIPromise<Channel> {
    return this.http.request({ method: "POST", path: "/api/channels", body, options });
  }
  list(params?: ListParams, options?: RequestOptions): PagePromise<Channel> {
    return this.paged<Channel>("/api/channels", params, options);
  }
  get(channelId: string, options?: RequestOptions): APIPromise<Channel> {
    return this.http.request({ method: "GET", path: `/api/channels/${seg(channelId)}`, options });
  }
  /** A new `url`, or `paused: false`, also clears a `failing` status. */
  update(channelId: string, body: ChannelUpdate, options?: RequestOptions): APIPromise<Channel> {
    return this.http.request({ method: "PATCH", path: `/api/channels/${seg(channelId)}`, body, options });
  }
  delete(channelId: string, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "DELETE", path: `/api/channels/${seg(channelId)}`, options });
  }
  /** Sends a test message now; answers what the service said (`delivered`, `retry`, `gone`, `failed`). */
  test(channelId: string, options?: RequestOptions): APIPromise<ChannelTestResult> {
    return this.http.request({ method: "POST", path: `/api/channels/${seg(channelId)}/test`, options });
  }
  /** The channel's messages, newest first. */
  deliveries(channelId: string, params?: ListParams, options?: RequestOptions): PagePromise<ChannelDelivery> {
    return this.paged<ChannelDelivery>(`/api/channels/${seg(channelId)}/deliveries`, params, options);
  }
  /** One message with the notification it sends (`payload`) and every attempt (`attemptLog`). */
  getDelivery(channelId: string, deliveryId: string, options?: RequestOptions): APIPromise<ChannelDeliveryDetail> {
    return this.http.request({ method: "GET", path: `/api/channels/${seg(channelId)}/deliveries/${seg(deliveryId)}`, options });
  }
  /** Sends one message again (also a failed one): pending and due now. */
  retryDelivery(channelId: string, deliveryId: string, options?: RequestOptions): APIPromise<ChannelDelivery> {
    return this.http.request({ method: "POST", path: `/api/channels/${seg(channelId)}/deliveries/${seg(deliveryId)}/retry`, options });
  }
  /** The channels a monitor's events reach: each with the events it takes, the lowest severity that reaches it, the tags that route it and its state (`active`, `paused`, `failing`). */
  forMonitor(monitorId: string, options?: RequestOptions): APIPromise<MonitorChannels> {
    return this.http.request({ method: "GET", path: `/api/monitors/${seg(monitorId)}/channels`, options });
  }
}

export class Tokens extends Resource {
  /** The response carries `token`, the secret, shown only once. */
  create(body: TokenCreate, options?: RequestOptions): APIPromise<Token & { token: string }> {
    return this.http.request({ method: "POST", path: "/api/tokens", body, options });
  }
  list(params?: ListParams, options?: RequestOptions): PagePromise<Token> {
    return this.paged<Token>("/api/tokens", params, options);
  }
  get(tokenId: string, options?: RequestOptions): APIPromise<Token> {
    return this.http.request({ method: "GET", path: `/api/tokens/${seg(tokenId)}`, options });
  }
  /** Revokes the token. */
  delete(tokenId: string, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "DELETE", path: `/api/tokens/${seg(tokenId)}`, options });
  }
}

/** Sign-in with accounts: first-run setup, cookie sessions, the caller's identity and organizations. */
export class Auth extends Resource {
  /** Whether first-run setup is open (no user exists yet). Public. */
  setupStatus(options?: RequestOptions): APIPromise<SetupStatus> {
    return this.http.request({ method: "GET", path: "/api/auth/setup", options });
  }
  /** Creates the first user, owner of the bootstrap organization, and signs in. Public. */
  setup(body: SetupRequest, options?: RequestOptions): APIPromise<Session> {
    return this.http.request({ method: "POST", path: "/api/auth/setup", body, options });
  }
  /** Signs in with email and password: a new cookie session. Public. */
  signIn(body: SignInRequest, options?: RequestOptions): APIPromise<Session> {
    return this.http.request({ method: "POST", path: "/api/auth/sign-in", body, options });
  }
  /** Ends the cookie session. */
  signOut(options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "POST", path: "/api/auth/sign-out", options });
  }
  /** Who is calling (session or token), in which organization, with which role and scopes. */
  me(options?: RequestOptions): APIPromise<Me> {
    return this.http.request({ method: "GET", path: "/api/auth/me", options });
  }
  /** Makes another of the user's organizations the session's active one. */
  switchOrg(orgId: string, options?: RequestOptions): APIPromise<Me> {
    return this.http.request({ method: "POST", path: "/api/auth/org", body: { orgId }, options });
  }
  /** Changes the user's password; the user's other sessions end. */
  changePassword(body: PasswordChangeRequest, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "POST", path: "/api/auth/password", body, options });
  }
}

export class Members extends Resource {
  /** The organization's members (admins). */
  list(orgId: string, params?: ListParams, options?: RequestOptions): PagePromise<Member> {
    return this.paged<Member>(`/api/orgs/${seg(orgId)}/members`, params, options);
  }
  /** Changes a member's role (only owners make or change owners). */
  update(orgId: string, userId: string, body: MemberUpdate, options?: RequestOptions): APIPromise<Member> {
    return this.http.request({ method: "PATCH", path: `/api/orgs/${seg(orgId)}/members/${seg(userId)}`, body, options });
  }
  /** Removes a member (admins; anyone may remove themselves). The last owner cannot go (409 `last_owner`). */
  remove(orgId: string, userId: string, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "DELETE", path: `/api/orgs/${seg(orgId)}/members/${seg(userId)}`, options });
  }
}

/** The caller's active organization (any other id is a 404). */
export class Orgs extends Resource {
  readonly members: Members;
  constructor(http: HttpCore) {
    super(http);
    this.members = new Members(http);
  }
  get(orgId: string, options?: RequestOptions): APIPromise<Org> {
    return this.http.request({ method: "GET", path: `/api/orgs/${seg(orgId)}`, options });
  }
  /**
   * Renames the organization or changes its defaults for new monitors (admins): `learnNoiseByDefault`
   * (their `autoApplySuggestions`) and `learningDefaults` (their `learning` setting,
   * `{ warmupSamples?: 0..5, learningSamples?: 2..10 }` or `null`), e.g. `{ learnNoiseByDefault: false }`.
   */
  update(orgId: string, body: OrgUpdate, options?: RequestOptions): APIPromise<Org> {
    return this.http.request({ method: "PATCH", path: `/api/orgs/${seg(orgId)}`, body, options });
  }
  /** Deletes the organization and everything in it (an owner's session). */
  delete(orgId: string, options?: RequestOptions): APIPromise<void> {
    return this.http.request({ method: "DELETE", path: `/api/orgs/${seg(orgId)}`, options });
  }
  /** Makes a member the owner; the caller becomes admin (an owner's session). Returns the new owner. */
  transferOwnership(orgId: string, userId: string, options?: RequestOptions): APIPromise<Member> {
    return this.http.request({ method: "POST", path: `/api/orgs/${seg(orgId)}/transfer-ownership`, body: { userId }, options });
  }
}

export class Invites extends Resource {
  /** Invites someone by email (admins; only owners invite owners). The answer's `url` carries the secret, shown only here. */
  create(body: InviteCreate, options?: RequestOptions): APIPromise<InviteCreated> {
    return this.http.request({ method: "POST", path: "/api/invites", body, options });
  }
  list(params?: ListParams, options?: RequestOptions): PagePromise<Invite> {
    return this.paged<Invite>("/api/invites", params, options);
  }
  /** Revokes a pending invite; returns it revoked. */
  revoke(inviteId: string, options?: RequestOptions): APIPromise<Invite> {
    return this.http.request({ method: "DELETE", path: `/api/invites/${seg(inviteId)}`, options });
  }
  /** What an invite link offers (organization, role, whether the email has an account). Public. */
  lookup(token: string, options?: RequestOptions): APIPromise<InviteLookup> {
    return this.http.request({ method: "GET", path: "/api/invites/lookup", query: { token }, options });
  }
  /** Accepts an invite: creates the user (new email) or checks the existing user's password, then signs in. Public. */
  accept(body: InviteAcceptRequest, options?: RequestOptions): APIPromise<Session> {
    return this.http.request({ method: "POST", path: "/api/invites/accept", body, options });
  }
}

export class Audit extends Resource {
  /** The organization's audit log, newest first (admins). */
  list(params?: ListParams, options?: RequestOptions): PagePromise<AuditEntry> {
    return this.paged<AuditEntry>("/api/audit", params, options);
  }
}
