import { describe } from "vitest";
import { channelCases } from "./cases/channels.case.js";
import { claimCases } from "./cases/claims.case.js";
import { concurrencyCases } from "./cases/concurrency.case.js";
import { deliveryCases } from "./cases/deliveries.case.js";
import { idempotencyCases } from "./cases/idempotency.case.js";
import { isolationCases } from "./cases/isolation.case.js";
import { leaseCases } from "./cases/leases.case.js";
import { monitorCases } from "./cases/monitors.case.js";
import { organizationCases } from "./cases/organizations.case.js";
import { peopleCases } from "./cases/people.case.js";
import { recordCheckCases } from "./cases/record-check.case.js";
import { screenshotCases, secretCases } from "./cases/screenshots-secrets.case.js";
import { settingsCases, webhookCases } from "./cases/settings-webhooks.case.js";
import { diffCases, snapshotCases } from "./cases/snapshots-diffs.case.js";
import { textCases } from "./cases/text.case.js";
import { trackedValueCases } from "./cases/tracked-values.case.js";
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
    leaseCases(ctx);
    snapshotCases(ctx);
    diffCases(ctx);
    recordCheckCases(ctx);
    settingsCases(ctx);
    trackedValueCases(ctx);
    webhookCases(ctx);
    deliveryCases(ctx);
    channelCases(ctx);
    idempotencyCases(ctx);
    isolationCases(ctx);
    concurrencyCases(ctx);
    textCases(ctx);
    peopleCases(ctx);
    screenshotCases(ctx);
    secretCases(ctx);
  });
}
