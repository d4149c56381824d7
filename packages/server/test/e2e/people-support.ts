// Helpers of the people suites: a real server in this process on a real database (its clock
// injected, so expiries can be reached without waiting), and a tiny cookie-keeping client.
import type { Store } from "@driftwatch/core";
import { type Logger, pino } from "pino";
import { createDriftwatchServer, type DriftwatchServer } from "../../src/index.js";
import type { ServerLimits } from "../../src/config/index.js";
import type { SmtpSettings } from "@driftwatch/people";
import { newAdminToken } from "./support.js";

export interface Database {
  url: string;
  drop(): Promise<void>;
}

export const STRONG = "tangerine-orbit-47-velvet";

export interface PeopleServer {
  server: DriftwatchServer;
  baseUrl: string;
  /** Bearer secret of the bootstrap admin token of org `default`. */
  adminToken: string;
  clock: { offsetMs: number };
  close(): Promise<void>;
}

export async function startPeopleServer(
  databaseUrl: string,
  options: { limits?: Partial<ServerLimits>; smtp?: SmtpSettings | null; publicUrl?: string | null; adminToken?: string; store?: Store; logger?: Logger } = {},
): Promise<PeopleServer> {
  const clock = { offsetMs: 0 };
  const adminToken = options.adminToken ?? newAdminToken();
  const server = await createDriftwatchServer({
    databaseUrl,
    // Another server on the same store (a second process on a memory: database is not possible).
    ...(options.store === undefined ? {} : { store: options.store }),
    host: "127.0.0.1",
    port: 0,
    adminToken,
    background: false,
    trustProxy: true,
    publicUrl: options.publicUrl ?? null,
    smtp: options.smtp ?? null,
    logger: options.logger ?? pino({ level: "silent" }),
    now: () => new Date(Date.now() + clock.offsetMs),
    // scrypt at 2^12 keeps the suite light; the default (2^17) is the same code.
    limits: { scryptLogN: 12, loginAccountLimit: 1000, loginAddressLimit: 1000, ...options.limits },
    rateLimitReads: 100_000,
    rateLimitWrites: 100_000,
  });
  await server.bootstrap();
  const baseUrl = await server.listen();
  return { server, baseUrl, adminToken, clock, close: () => server.close() };
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** Set-Cookie header lines. */
  cookies: string[];
}

/**
 * A browser-like client: keeps the dw_session cookie it is given (and drops it when cleared),
 * sends the CSRF header and Origin on writes unless told otherwise.
 */
export class Browser {
  cookie: string | null = null;
  csrf: string | null = null;
  origin: string;

  /** `bearer`: an API token sent on every request (a program rather than a browser). */
  constructor(
    readonly baseUrl: string,
    readonly bearer: string | null = null,
  ) {
    this.origin = baseUrl;
  }

  async send<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: { headers?: Record<string, string>; csrf?: boolean; origin?: string | null; bearer?: string } = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...(body === undefined ? {} : { "content-type": "application/json" }) };
    if (this.cookie !== null) headers.cookie = `dw_session=${this.cookie}`;
    const write = !["GET", "HEAD", "OPTIONS"].includes(method);
    if (write && options.csrf !== false && this.csrf !== null) headers["x-driftwatch-csrf"] = this.csrf;
    const origin = options.origin === undefined ? this.origin : options.origin;
    if (write && origin !== null) headers.origin = origin;
    const bearer = options.bearer ?? this.bearer;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    Object.assign(headers, options.headers);
    const controller = new AbortController();
    const response = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
      redirect: "manual",
    });
    const cookies = response.headers.getSetCookie();
    for (const line of cookies) {
      const match = /^dw_session=([^;]*)/.exec(line);
      if (match === null) continue;
      const cleared = match[1] === "" || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line);
      this.cookie = cleared ? null : match[1]!;
      if (cleared) this.csrf = null;
    }
    let parsed: unknown = null;
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      controller.abort();
    } else {
      const text = await response.text();
      parsed = text === "" ? null : /json/.test(response.headers.get("content-type") ?? "") ? JSON.parse(text) : text;
    }
    const answer = { status: response.status, body: parsed as T, headers: response.headers, cookies };
    const csrf = (parsed as { csrfToken?: unknown } | null)?.csrfToken;
    if (response.ok && typeof csrf === "string") this.csrf = csrf;
    return answer;
  }

  /** Signs in; throws unless it worked. */
  async signIn(email: string, password: string, orgId?: string): Promise<Answer> {
    const answer = await this.send("POST", "/api/auth/sign-in", { email, password, ...(orgId === undefined ? {} : { orgId }) });
    if (answer.status !== 200) throw new Error(`sign-in of ${email} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  }
}

/** Reads the setup token of a fresh setup link (as `driftwatch serve` prints it). */
export function tokenOfLink(url: string): string {
  const token = new URL(url).hash.replace(/^#token=/, "");
  if (token === "") throw new Error(`no token in ${url}`);
  return token;
}
