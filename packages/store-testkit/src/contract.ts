import { describe } from "vitest";
import { claimCases } from "./cases/claims.js";
import { concurrencyCases } from "./cases/concurrency.js";
import { deliveryCases } from "./cases/deliveries.js";
import { idempotencyCases } from "./cases/idempotency.js";
import { isolationCases } from "./cases/isolation.js";
import { monitorCases } from "./cases/monitors.js";
import { organizationCases } from "./cases/organizations.js";
import { recordCheckCases } from "./cases/record-check.js";
import { settingsCases, webhookCases } from "./cases/settings-webhooks.js";
import { diffCases, snapshotCases } from "./cases/snapshots-diffs.js";
import { textCases } from "./cases/text.js";
import { assertCapabilities, createContext, type StoreContractOptions } from "./harness.js";

/**
 * Registers the driftwatch `Store` contract suite (vitest `describe`/`it`) for one adapter.
 * Call it at the top level of a test file:
 *
 * ```ts
 * runStoreContract({
 *   name: "@acme/store-redis",
 *   async create() {
 *     const db = await freshDatabase();
 *     return { open: (o) => createRedisStore({ url: db.url, hooks: o?.hooks }), destroy: () => db.drop() };
 *   },
 *   capabilities: { sharedDatabase: true, rateLimits: { reason: "no shared counters yet" } },
 * });
 * ```
 */
export function runStoreContract(options: StoreContractOptions): void {
  assertCapabilities(options.capabilities);
  describe(`Store contract: ${options.name}`, () => {
    const ctx = createContext(options);
    organizationCases(ctx);
    monitorCases(ctx);
    claimCases(ctx);
    snapshotCases(ctx);
    diffCases(ctx);
    recordCheckCases(ctx);
    settingsCases(ctx);
    webhookCases(ctx);
    deliveryCases(ctx);
    idempotencyCases(ctx);
    isolationCases(ctx);
    concurrencyCases(ctx);
    textCases(ctx);
  });
}
