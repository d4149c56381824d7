import type { Alert, LearningSettings, PolicyRules, RejectedSuggestion, TrackedValueSpec } from "@driftwatch/schema";

/** Per-monitor settings: policy rules, snapshot retention, auto-applied suggestions. */
export interface SettingsStore {
  /** Settings of a monitor: defaults (`{ rules: [] }`, retention 100, `autoApplySuggestions` false, `updatedAt` null) when never set; null when the monitor is unknown. */
  getSettings(orgId: string, monitorId: string): Promise<SettingsRecord | null>;
  /** Replaces the given fields (an omitted field stays); null when the monitor is unknown. */
  updateSettings(orgId: string, monitorId: string, patch: SettingsPatch): Promise<SettingsRecord | null>;
}

export interface SettingsRecord {
  orgId: string;
  monitorId: string;
  policyRulesJson: PolicyRules;
  snapshotRetention: number;
  /**
   * Future diffs use the policy merged with the one learned from recent snapshots. A monitor
   * created with `NewMonitor.autoApplySuggestions` starts with that value (the server passes its
   * organization's `learnNoiseByDefault`); a monitor with no settings row reads false (monitors
   * made before learning became the default keep learning off).
   */
  autoApplySuggestions: boolean;
  /** Learned entries the user rejected (default none). */
  rejectedSuggestions: RejectedSuggestion[];
  /** Values each check records (default none). */
  track: TrackedValueSpec[];
  /** Conditions that decide when a check alerts (default null: none). */
  alert: Alert | null;
  /** How the monitor starts learning: its own warm-up and learning samples (default null: the service's). */
  learning: LearningSettings | null;
  updatedAt: string | null;
}
export interface SettingsPatch {
  policyRulesJson?: PolicyRules;
  snapshotRetention?: number;
  autoApplySuggestions?: boolean;
  rejectedSuggestions?: RejectedSuggestion[];
  track?: TrackedValueSpec[];
  /** null removes the conditions. */
  alert?: Alert | null;
  /** null: the service's defaults. */
  learning?: LearningSettings | null;
  updatedAt: string;
}

/** The settings of a monitor that never had any written. */
export function defaultSettings(orgId: string, monitorId: string, snapshotRetention: number): SettingsRecord {
  return { orgId, monitorId, policyRulesJson: { rules: [] }, snapshotRetention, autoApplySuggestions: false, rejectedSuggestions: [], track: [], alert: null, learning: null, updatedAt: null };
}
