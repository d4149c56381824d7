// Brute-force limits of password checks (sign-in, invitation acceptance by an existing user,
// password change): failed attempts are counted per account and per client address in a fixed
// window; past either limit, attempts are refused with 429 before any password is checked. An
// attempt counts as failed from the moment it is let through, so attempts sent at once (each
// waiting for its hash) cannot all pass the check before the first failure is counted; a success
// gives its own count back and clears its account's failures, and never the address's: otherwise
// an attacker with an account of their own would sign into it between guesses at other accounts
// and start the address's count again. `createLoginLimiter` counts in this process;
// `createStoreLoginLimiter` in the store, so that every API process on one database counts against
// the same limits.
import type { Store } from "@driftwatch/core";
import { PeopleError } from "./errors.js";

export interface LoginLimiterOptions {
  accountLimit: number;
  addressLimit: number;
  windowMs: number;
  /** Keys tracked at most per kind (the oldest goes first). */
  maxEntries?: number;
}

interface Window {
  count: number;
  resetAt: number;
}

export interface LoginLimiter {
  /**
   * Throws `429 rate_limited` (with Retry-After) when the account or the address is over its
   * limit; otherwise counts the attempt as failed until `succeeded` says otherwise.
   */
  attempt(account: string, address: string, at: number): Promise<void>;
  /**
   * The attempt let through at `at` succeeded: the account's failures are cleared (only its own
   * password gets there) and the address gets this attempt's count back, its failures staying counted.
   */
  succeeded(account: string, address: string, at: number): Promise<void>;
}

function refuse(window: Window, at: number, what: string): PeopleError {
  const seconds = Math.max(1, Math.ceil((window.resetAt - at) / 1000));
  return new PeopleError("rate_limited", `Too many failed sign-in attempts ${what}: retry in ${String(seconds)} s.`, {
    headers: { "retry-after": String(seconds) },
  });
}

/**
 * The limits counted in the store's rate-limit windows (capability `rateLimits` with
 * `resetRateLimit`), shared by every process on the database; null when the store has none. Fixed
 * windows of `windowMs`; a success clears the account's count and gives the address back this
 * attempt's hit (`refundRateLimitHit`; a store without it keeps the success counted), so the
 * address's failures stay counted until its window ends.
 */
export function createStoreLoginLimiter(store: Store, options: LoginLimiterOptions): LoginLimiter | null {
  const hit = store.hitRateLimit;
  const reset = store.resetRateLimit;
  const refund = store.refundRateLimitHit;
  if (!store.capabilities.rateLimits || hit === undefined || reset === undefined) return null;
  return {
    async attempt(account, address, at) {
      const byAccount = await hit.call(store, `login:account:${account}`, options.windowMs, at);
      if (byAccount.count > options.accountLimit) throw refuse(byAccount, at, "for this account");
      const byAddress = await hit.call(store, `login:address:${address}`, options.windowMs, at);
      if (byAddress.count > options.addressLimit) throw refuse(byAddress, at, "from this address");
    },
    async succeeded(account, address, at) {
      // Only the account's own password gets here, so clearing its failures helps no one guessing
      // at it. The address keeps its failures (an attacker signing into an account of their own
      // between guesses must not start them again): it gets back this attempt's hit only, in the
      // window it was counted in, so an office behind one address can still sign in all morning.
      await reset.call(store, `login:account:${account}`);
      await refund?.call(store, `login:address:${address}`, options.windowMs, at);
    },
  };
}

export function createLoginLimiter(options: LoginLimiterOptions): LoginLimiter {
  const maxEntries = options.maxEntries ?? 100_000;
  const accounts = new Map<string, Window>();
  const addresses = new Map<string, Window>();

  function current(map: Map<string, Window>, key: string, at: number): Window | null {
    const window = map.get(key);
    if (window === undefined) return null;
    // A window that ended, or one a clock jump put too far ahead, is forgotten.
    if (window.resetAt <= at || window.resetAt - at > options.windowMs) {
      map.delete(key);
      return null;
    }
    return window;
  }

  function count(map: Map<string, Window>, key: string, at: number): void {
    let window = current(map, key, at);
    if (window === null) {
      window = { count: 0, resetAt: at + options.windowMs };
      map.set(key, window);
      if (map.size > maxEntries) map.delete(map.keys().next().value as string);
    }
    window.count++;
  }


  // Synchronous underneath (a refusal is thrown at once, a count taken before the caller awaits):
  // attempts sent at once are counted in the order they arrive.
  return {
    attempt(account, address, at) {
      const byAccount = current(accounts, account, at);
      if (byAccount !== null && byAccount.count >= options.accountLimit) throw refuse(byAccount, at, "for this account");
      const byAddress = current(addresses, address, at);
      if (byAddress !== null && byAddress.count >= options.addressLimit) throw refuse(byAddress, at, "from this address");
      count(accounts, account, at);
      count(addresses, address, at);
      return Promise.resolve();
    },
    succeeded(account, address, at) {
      accounts.delete(account);
      const byAddress = current(addresses, address, at);
      if (byAddress !== null && byAddress.count > 0) byAddress.count--;
      return Promise.resolve();
    },
  };
}
