import { useMutation, useQueries, useQuery, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { useClient } from "../../api/context";
import { monitorKeys } from "../../api/keys";
import { apiRequest, seg } from "../../api/raw";

/*
 * Tracked values and alert conditions (issue 29): the shapes the issue states. The typed client
 * has no `values` method and its settings types lack `track` and `alert` yet; every call goes
 * through `apiRequest` here, and only here.
 */

export const EXTRACTS = ["number", "text", "attribute", "price", "availability"] as const;
export type Extract = (typeof EXTRACTS)[number];

export interface TrackSpec {
  name: string;
  path?: string;
  selector?: string;
  extract?: Extract;
  attribute?: string;
}

export type Availability = "in_stock" | "out_of_stock" | "preorder" | "unknown";
export const AVAILABILITIES: readonly Availability[] = ["in_stock", "out_of_stock", "preorder", "unknown"];

export interface Price {
  amount: number;
  currency: string | null;
}

export type TrackedValue = number | string | boolean | Price;

export const OPS = ["lt", "lte", "gt", "gte", "eq", "ne", "contains", "matches", "changed", "changed_to", "dropped_by_percent", "rose_by_percent", "appeared", "disappeared"] as const;
export type Op = (typeof OPS)[number];

export interface Condition {
  value: string;
  op: Op;
  to?: number | string | boolean;
  forChecks?: number;
}

export interface Alert {
  when: "all" | "any";
  conditions: Condition[];
}

/** The part of a monitor's settings this feature reads and writes. */
export interface TrackingSettings {
  track?: TrackSpec[] | null;
  alert?: Alert | null;
}

/** One reading: `snapshotId` is the content it was read from (the same for checks that found no new content). */
export interface ValuePoint {
  at: string;
  value: TrackedValue | null;
  snapshotId: string | null;
  /** Why there is no value (when `value` is null). */
  reason?: string;
}

const settingsPath = (monitorId: string): string => `/api/monitors/${seg(monitorId)}/settings`;

export function useTracking(monitorId: string): UseQueryResult<TrackingSettings> {
  const client = useClient();
  return useQuery({ queryKey: monitorKeys.settings(monitorId), queryFn: () => apiRequest<TrackingSettings>(client, "GET", settingsPath(monitorId)) });
}

/** Saves `track` and `alert` (null clears the alert: every change alerts again). */
export function useSaveTracking(monitorId: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TrackingSettings) => apiRequest<TrackingSettings>(client, "PATCH", settingsPath(monitorId), { body }),
    onSuccess: (settings) => {
      queryClient.setQueryData(monitorKeys.settings(monitorId), settings);
      void queryClient.invalidateQueries({ queryKey: [...monitorKeys.detail(monitorId), "values"] });
    },
  });
}

/**
 * Applies a preset of the monitor form to a monitor just created or edited: reads its tracked
 * values, lets `build` add the preset's, and saves `track` and `alert`.
 */
export async function applyTracking(client: ReturnType<typeof useClient>, monitorId: string, build: (existing: TrackSpec[]) => TrackingSettings | null): Promise<TrackingSettings | null> {
  const current = await apiRequest<TrackingSettings>(client, "GET", settingsPath(monitorId));
  const body = build(current.track ?? []);
  return body === null ? null : await apiRequest<TrackingSettings>(client, "PATCH", settingsPath(monitorId), { body });
}

/** Most points a chart or the preview reads per value (the API pages 100 at a time). */
export const HISTORY = 200;
const PAGE = 100;

function valuesQuery(client: ReturnType<typeof useClient>, monitorId: string, name: string) {
  return {
    queryKey: [...monitorKeys.detail(monitorId), "values", name],
    // newest first, as the API answers
    queryFn: async () => {
      const points: ValuePoint[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: ValuePoint[]; nextCursor?: string | null } = await apiRequest(client, "GET", `/api/monitors/${seg(monitorId)}/values`, { query: { name, limit: PAGE, cursor } });
        points.push(...page.data);
        cursor = page.nextCursor ?? null;
      } while (cursor !== null && points.length < HISTORY);
      return points.slice(0, HISTORY);
    },
  };
}

export function useValues(monitorId: string, name: string): UseQueryResult<ValuePoint[]> {
  const client = useClient();
  return useQuery(valuesQuery(client, monitorId, name));
}

/** The histories of several tracked values at once (for the preview). */
export function useValueHistories(monitorId: string, names: readonly string[]): Array<UseQueryResult<ValuePoint[]>> {
  const client = useClient();
  return useQueries({ queries: names.map((name) => valuesQuery(client, monitorId, name)) });
}
