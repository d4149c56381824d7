import type { Diff, LiveEvent, Monitor } from "@driftwatch/client";
import type { InfiniteData, QueryClient } from "@tanstack/react-query";
import { monitorKeys, webhookKeys } from "../api/keys";

function replaceMonitor(list: Monitor[] | undefined, monitor: Monitor): Monitor[] | undefined {
  if (list === undefined) return list;
  const index = list.findIndex((m) => m.id === monitor.id);
  if (index < 0) return [monitor, ...list];
  const next = list.slice();
  next[index] = monitor;
  return next;
}

/** Applies one live event to the query cache: updated rows in place, new diffs and deliveries refetched. */
export function applyLiveEvent(queryClient: QueryClient, event: LiveEvent): void {
  if (event.type === "check" || event.type === "monitor") {
    const monitor = event.monitor;
    queryClient.setQueryData<Monitor[]>(monitorKeys.list(), (list) => replaceMonitor(list, monitor));
    queryClient.setQueryData<Monitor>(monitorKeys.detail(monitor.id), monitor);
  }
  if (event.type === "check" && event.diff !== null) {
    const diff: Diff = event.diff;
    queryClient.setQueryData<Diff | null>(monitorKeys.latestDiff(diff.monitorId), diff);
    queryClient.setQueryData<Diff[]>(monitorKeys.recentDiffs(diff.monitorId), (recent) => (recent === undefined || recent.some((d) => d.id === diff.id) ? recent : [diff, ...recent]));
    queryClient.setQueryData<Diff>(monitorKeys.diff(diff.monitorId, diff.id), diff);
    queryClient.setQueryData<InfiniteData<{ data: Diff[]; nextCursor: string | null }>>(monitorKeys.diffs(diff.monitorId), (pages) => {
      if (pages === undefined || pages.pages.length === 0) return pages;
      const [first, ...rest] = pages.pages;
      if (first!.data.some((d) => d.id === diff.id)) return pages;
      return { ...pages, pages: [{ ...first!, data: [diff, ...first!.data] }, ...rest] };
    });
  }
  if (event.type === "delivery") {
    void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(event.delivery.webhookId) });
  }
}
