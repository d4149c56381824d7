import type { BrowserOptions, Contract, HttpMethod, LearningSettings, Monitor, MonitorState, MonitorType, Page } from "@driftwatch/schema";
import type { PageRequest } from "./paging.js";

/** Monitors: what to fetch, how often, and the outcome of the last check. */
export interface MonitorStore {
  createMonitor(orgId: string, input: NewMonitor): Promise<MonitorRecord>;
  getMonitor(orgId: string, id: string): Promise<MonitorRecord | null>;
  /** Partial update; returns null when unknown. `updatedAt` is set by the caller in `patch`. */
  updateMonitor(orgId: string, id: string, patch: MonitorPatch): Promise<MonitorRecord | null>;
  /** Deletes the monitor with its snapshots, diffs and settings (deliveries stay in the log). */
  deleteMonitor(orgId: string, id: string): Promise<boolean>;
  /** Newest first; `tag` keeps the monitors that have that tag (paging counts only those). */
  listMonitors(orgId: string, query: MonitorQuery): Promise<Page<MonitorRecord>>;
}

/** The filter of a monitor list, without its paging. */
export interface MonitorFilter {
  /** Only monitors with this tag (normalised by `defineStore`: trimmed, lower-cased). */
  tag?: string | undefined;
}
export type MonitorQuery = PageRequest & MonitorFilter;

export interface NewMonitor {
  type: MonitorType;
  name: string;
  url: string;
  method: HttpMethod;
  /** Unmasked: the store keeps real values; masking happens when serving. */
  headers: Record<string, string>;
  body: string | null;
  intervalSeconds: number;
  selector: string | null;
  browserOptionsJson: BrowserOptions | null;
  /** Normalised by `defineStore` (`normalizeTags` of `@driftwatch/schema`); absent means none. */
  tags?: string[];
  /** `api` monitors: the OpenAPI contract (absent: none). */
  contract?: Contract | null;
  state: MonitorState;
  nextCheckAt: string | null;
  /**
   * The monitor's `autoApplySuggestions` setting from the start, written with the monitor in one
   * transaction (the server passes the organization's `learnNoiseByDefault`). Absent: no settings
   * row is written and the setting reads false. The row written has `updatedAt` null (no one changed it yet).
   */
  autoApplySuggestions?: boolean;
  /** The monitor's `learning` settings from the start (the server passes its organization's `learningDefaults`), written with `autoApplySuggestions`. */
  learning?: LearningSettings | null;
}
export interface MonitorRecord extends Monitor {
  orgId: string;
  /**
   * When the monitor's target last changed (its URL, method, body or selector was updated; null
   * or absent: never since it was created). Its noise profile learns only from snapshots fetched
   * from then on, so what was learned about the old target is not applied to the new one.
   */
  learningSince?: string | null;
}
export type MonitorPatch = Partial<Omit<Monitor, "id" | "type" | "createdAt">> & {
  /** See `MonitorRecord.learningSince`. */
  learningSince?: string | null;
};

/** The time fields of a monitor patch (normalised by `defineStore`). */
export const MONITOR_TIME_FIELDS = ["lastCheckedAt", "lastChangedAt", "nextCheckAt", "updatedAt", "learningSince"] as const satisfies readonly (keyof MonitorPatch)[];
