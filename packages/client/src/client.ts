import { HttpCore, type ClientOptions } from "./core.js";
import { Audit, Auth, Channels, Diffs, Events, Invites, Monitors, Orgs, Secrets, SettingsResource, Snapshots, Tokens, Webhooks } from "./resources.js";

/**
 * The driftwatch API client.
 *
 * ```ts
 * const client = new Driftwatch({ baseUrl: "http://127.0.0.1:8080", token: process.env.DRIFTWATCH_TOKEN! });
 * const monitor = await client.monitors.create({ type: "api", url: "https://api.example.com/v1/status" });
 * const { snapshot, diff } = await client.monitors.check(monitor.id);
 * for await (const d of client.diffs.list(monitor.id)) console.log(d.classification, d.topSeverity);
 * ```
 *
 * In a browser signed in with a cookie session, leave `token` out:
 * `new Driftwatch({ baseUrl: location.origin, credentials: "same-origin", csrfToken: () => csrf })`.
 */
export class Driftwatch {
  readonly monitors: Monitors;
  readonly diffs: Diffs;
  readonly snapshots: Snapshots;
  readonly settings: SettingsResource;
  readonly webhooks: Webhooks;
  /** Notification channels (Slack, Discord, e-mail, ...), their messages and test sends. */
  readonly channels: Channels;
  readonly tokens: Tokens;
  /** Setup, sign-in, cookie sessions, the caller's identity. */
  readonly auth: Auth;
  /** The active organization and its members. */
  readonly orgs: Orgs;
  readonly invites: Invites;
  readonly audit: Audit;
  /** Secrets for browser steps (values are write-only). */
  readonly secrets: Secrets;
  /** Live events of the organization (server-sent events over `fetch`). */
  readonly events: Events;
  /** The transport (retries, timeouts); exposed for advanced use and tests. */
  readonly http: HttpCore;

  constructor(options: ClientOptions) {
    this.http = new HttpCore(options);
    this.monitors = new Monitors(this.http);
    this.diffs = new Diffs(this.http);
    this.snapshots = new Snapshots(this.http);
    this.settings = new SettingsResource(this.http);
    this.webhooks = new Webhooks(this.http);
    this.channels = new Channels(this.http);
    this.tokens = new Tokens(this.http);
    this.events = new Events(this.http);
    this.auth = new Auth(this.http);
    this.orgs = new Orgs(this.http);
    this.invites = new Invites(this.http);
    this.audit = new Audit(this.http);
    this.secrets = new Secrets(this.http);
  }
}

/** `new Driftwatch(options)`. */
export function createClient(options: ClientOptions): Driftwatch {
  return new Driftwatch(options);
}
