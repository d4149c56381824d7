import { expect } from "vitest";
import type { Store } from "@driftwatch/core";

/**
 * The settings row a SQL adapter's migration test writes with its first schema version (before
 * `auto_apply_suggestions` existed), for monitor `mon_1` of organization `org_1`.
 */
export const FIRST_VERSION_SETTINGS = { policyRules: { rules: [{ path: "$.a", action: "ignore" }] }, snapshotRetention: 7 } as const;

/** Checks that the store, opened on that old database, reads the row with the new field's default and can set it. */
export async function expectFirstVersionSettingsMigrated(store: Store, updatedAt: string): Promise<void> {
  expect(await store.getSettings("org_1", "mon_1")).toEqual({
    orgId: "org_1",
    monitorId: "mon_1",
    policyRulesJson: FIRST_VERSION_SETTINGS.policyRules,
    snapshotRetention: FIRST_VERSION_SETTINGS.snapshotRetention,
    autoApplySuggestions: false,
    updatedAt,
  });
  expect(await store.updateSettings("org_1", "mon_1", { autoApplySuggestions: true, updatedAt })).toMatchObject({
    snapshotRetention: FIRST_VERSION_SETTINGS.snapshotRetention,
    autoApplySuggestions: true,
  });
}
