// The people domain's context: the store, the clock, the limits, the sign-in limiter and the
// mailer. Every operation of this package takes it first; the server makes one per app, an
// embedder one per store.
import type { Store } from "@driftwatch/core";
import { DEFAULT_PEOPLE_LIMITS, type PeopleLimits } from "./limits.js";
import { createLoginLimiter, createStoreLoginLimiter, type LoginLimiter } from "./login-limiter.js";
import type { InviteMailer } from "./mailer.js";
import type { ScryptParams } from "./password.js";

export interface People {
  store: Store;
  now: () => Date;
  limits: PeopleLimits;
  scrypt: ScryptParams;
  limiter: LoginLimiter;
  mailer: InviteMailer | null;
}

export interface PeopleOptions {
  store: Store;
  /** Default: the wall clock. */
  now?: () => Date;
  limits?: Partial<PeopleLimits>;
  mailer?: InviteMailer | null;
  /** Sign-in limits counted in the store (shared by every process on the database) when it can. */
  sharedCounters?: boolean;
}

export function createPeople(options: PeopleOptions): People {
  const limits = { ...DEFAULT_PEOPLE_LIMITS, ...options.limits };
  const limiterOptions = { accountLimit: limits.loginAccountLimit, addressLimit: limits.loginAddressLimit, windowMs: limits.loginWindowSeconds * 1000 };
  return {
    store: options.store,
    now: options.now ?? (() => new Date()),
    limits,
    scrypt: { logN: limits.scryptLogN, r: 8, p: 1 },
    limiter: (options.sharedCounters === true ? createStoreLoginLimiter(options.store, limiterOptions) : null) ?? createLoginLimiter(limiterOptions),
    mailer: options.mailer ?? null,
  };
}
