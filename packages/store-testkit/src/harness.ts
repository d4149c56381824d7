import { afterEach, beforeEach } from "vitest";
import { isDriftwatchError, type Store, type StoreHooks } from "@driftwatch/core";

/** What `open` may pass to the adapter's factory. */
export interface OpenStoreOptions {
  /** Forward to the adapter's `hooks` option (the atomicity cases inject failures through it). */
  hooks?: StoreHooks;
}

/**
 * One fresh, empty database for one test. `open` returns a store on it; calling `open` again
 * returns another store on the SAME database (a second SQLite connection, a second pg pool, a
 * second memory store sharing the tables): the concurrency cases claim through two of them.
 */
export interface StoreContractHarness {
  open(options?: OpenStoreOptions): Promise<Store>;
  /** Closes what `open` opened and removes the database (files, schema, ...). */
  destroy(): Promise<void>;
}

/** A capability is supported (`true`) or declared missing with the reason; its cases then show as skipped with that reason. */
export type Capability = true | { reason: string };

export interface StoreContractCapabilities {
  /** `open` can be called twice on one database (needed by the concurrency cases). */
  sharedDatabase: Capability;
  /** `hitRateLimit` is implemented (`store.capabilities.rateLimits`). */
  rateLimits: Capability;
}

export interface StoreContractOptions {
  /** Shown in the test names, e.g. `@driftwatch/store-sqlite`. */
  name: string;
  /** Called before every test: a harness on a fresh, empty database. */
  create(): Promise<StoreContractHarness>;
  capabilities: StoreContractCapabilities;
}

/** What every case file gets: the current test's store and a way to open peers on its database. */
export interface ContractContext {
  readonly options: StoreContractOptions;
  /** The test's store, opened on first use (with `options` given on that first call). */
  store(options?: OpenStoreOptions): Promise<Store>;
  /** Another store on the same database as `store()`. */
  peer(options?: OpenStoreOptions): Promise<Store>;
  /** Whether a capability is supported, and the skip label when it is not. */
  supports(capability: keyof StoreContractCapabilities): { supported: boolean; label: string };
}

/** Registers `beforeEach`/`afterEach` that give each test its own harness. */
export function createContext(options: StoreContractOptions): ContractContext {
  let harness: StoreContractHarness | undefined;
  let main: Promise<Store> | undefined;

  beforeEach(async () => {
    harness = await options.create();
    main = undefined;
  });
  afterEach(async () => {
    const current = harness;
    harness = undefined;
    main = undefined;
    await current?.destroy();
  });

  const requireHarness = (): StoreContractHarness => {
    if (harness === undefined) throw new Error("The store contract's harness is used outside a test.");
    return harness;
  };

  return {
    options,
    store(openOptions) {
      main ??= requireHarness().open(openOptions);
      return main;
    },
    async peer(openOptions) {
      await (main ??= requireHarness().open());
      return requireHarness().open(openOptions);
    },
    supports(capability) {
      const value = options.capabilities[capability];
      return value === true
        ? { supported: true, label: "" }
        : { supported: false, label: ` (capability "${capability}" not supported: ${value.reason})` };
    },
  };
}

/** The `code` of the error a promise rejects with (`undefined` when it resolves or rejects with something else). */
export async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return isDriftwatchError(error) ? error.code : `not a driftwatch error: ${String(error)}`;
  }
  return undefined;
}

/** Validates the declared capabilities up front, so a typo fails loudly instead of skipping cases. */
export function assertCapabilities(capabilities: StoreContractCapabilities): void {
  for (const key of ["sharedDatabase", "rateLimits"] as const) {
    const value: unknown = capabilities[key];
    const ok =
      value === true ||
      (typeof value === "object" && value !== null && typeof (value as { reason?: unknown }).reason === "string" && (value as { reason: string }).reason.trim() !== "");
    if (!ok) throw new TypeError(`runStoreContract: capabilities.${key} must be true or { reason: "why it is missing" }.`);
  }
}
