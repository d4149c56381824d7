import type { Diff, Monitor, MonitorCreate, MonitorUpdate } from "@driftwatch/client";
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { allPages } from "../../api/all-pages";
import { useClient } from "../../api/context";
import { channelKeys, monitorKeys } from "../../api/keys";

export function useMonitors(): UseQueryResult<Monitor[]> {
  const client = useClient();
  return useQuery({ queryKey: monitorKeys.list(), queryFn: () => allPages(client.monitors.list({ limit: 100 })) });
}

export function useMonitor(id: string): UseQueryResult<Monitor> {
  const client = useClient();
  return useQuery({ queryKey: monitorKeys.detail(id), queryFn: async () => await client.monitors.get(id) });
}

/** The newest diff of a monitor (for its top severity), fetched only for monitors that changed. */
export function latestDiffQuery(client: ReturnType<typeof useClient>, monitor: Monitor) {
  return {
    queryKey: monitorKeys.latestDiff(monitor.id),
    queryFn: async (): Promise<Diff | null> => (await client.diffs.list(monitor.id, { limit: 1 })).data[0] ?? null,
    enabled: monitor.lastChangedAt !== null,
    staleTime: 60_000,
  };
}

export function useLatestDiff(monitor: Monitor): UseQueryResult<Diff | null> {
  const client = useClient();
  return useQuery(latestDiffQuery(client, monitor));
}

/** Days the monitors list's sparkline covers. */
export const SPARKLINE_DAYS = 14;
const MAX_RECENT_DIFFS = 100;

/**
 * The monitor's diffs of the last `SPARKLINE_DAYS` days (at most 100, newest first), for the
 * sparkline; no request for a monitor that did not change in that time.
 */
export function useRecentDiffs(monitor: Monitor, now: number = Date.now()): UseQueryResult<Diff[]> {
  const client = useClient();
  const since = new Date(now - SPARKLINE_DAYS * 86_400_000);
  const changedLately = monitor.lastChangedAt !== null && Date.parse(monitor.lastChangedAt) >= since.getTime();
  return useQuery({
    queryKey: monitorKeys.recentDiffs(monitor.id),
    queryFn: async () => (await client.diffs.list(monitor.id, { since: since.toISOString(), limit: MAX_RECENT_DIFFS })).data,
    enabled: changedLately,
    staleTime: 60_000,
  });
}

function useStoreMonitor(): (monitor: Monitor) => void {
  const queryClient = useQueryClient();
  return (monitor) => {
    queryClient.setQueryData<Monitor>(monitorKeys.detail(monitor.id), monitor);
    queryClient.setQueryData<Monitor[]>(monitorKeys.list(), (list) => list?.map((m) => (m.id === monitor.id ? monitor : m)));
  };
}

export function useSetMonitorState() {
  const client = useClient();
  const store = useStoreMonitor();
  return useMutation({
    mutationFn: async ({ id, state }: { id: string; state: "active" | "paused" }) => await client.monitors.update(id, { state }),
    onSuccess: store,
  });
}

export function useCheckNow() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => await client.monitors.check(id),
    onSettled: (_data, _error, id) => {
      void queryClient.invalidateQueries({ queryKey: monitorKeys.detail(id) });
      void queryClient.invalidateQueries({ queryKey: monitorKeys.list() });
    },
  });
}

export function useSaveMonitor(id: string | undefined) {
  const client = useClient();
  const queryClient = useQueryClient();
  const store = useStoreMonitor();
  return useMutation({
    mutationFn: async (body: MonitorCreate | MonitorUpdate): Promise<Monitor> =>
      id === undefined ? await client.monitors.create(body as MonitorCreate) : await client.monitors.update(id, body as MonitorUpdate),
    onSuccess: (monitor) => {
      store(monitor);
      if (id === undefined) void queryClient.invalidateQueries({ queryKey: monitorKeys.list() });
      // its tags decide which channels get its changes
      else void queryClient.invalidateQueries({ queryKey: channelKeys.monitor(id) });
    },
  });
}

export function useDeleteMonitor() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => await client.monitors.delete(id),
    onSuccess: (_data, id) => {
      queryClient.setQueryData<Monitor[]>(monitorKeys.list(), (list) => list?.filter((m) => m.id !== id));
      queryClient.removeQueries({ queryKey: monitorKeys.detail(id) });
    },
  });
}
