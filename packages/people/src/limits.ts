// The limits of the people domain: sessions, sign-in limits, invitations and password hashing
// (docs/people.md). The server sets each from an environment variable (its config/limits.ts).

/** Sessions, sign-in limits, invitations and password hashing (docs/people.md). */
export interface PeopleLimits {
  /** A session unused this long ends (each request moves it). */
  sessionIdleSeconds: number;
  /** A session ends this long after sign-in, used or not. */
  sessionMaxAgeSeconds: number;
  /** Failed sign-ins per account within `loginWindowSeconds` before it is answered 429. */
  loginAccountLimit: number;
  /** Failed sign-ins per client address within `loginWindowSeconds` before it is answered 429. */
  loginAddressLimit: number;
  loginWindowSeconds: number;
  /** How long an invitation link stays valid. */
  inviteTtlSeconds: number;
  /** How long the first-run setup link stays valid. */
  setupTtlSeconds: number;
  /** scrypt's cost as log2(N) for new password hashes (r = 8, p = 1). */
  scryptLogN: number;
}

export const DEFAULT_PEOPLE_LIMITS: PeopleLimits = {
  sessionIdleSeconds: 7 * 24 * 3600,
  sessionMaxAgeSeconds: 30 * 24 * 3600,
  loginAccountLimit: 10,
  loginAddressLimit: 30,
  loginWindowSeconds: 15 * 60,
  inviteTtlSeconds: 7 * 24 * 3600,
  setupTtlSeconds: 24 * 3600,
  scryptLogN: 17,
};

/** Live sessions one user holds at most: a new sign-in revokes the oldest beyond it. */
export const MAX_SESSIONS_PER_USER = 20;
