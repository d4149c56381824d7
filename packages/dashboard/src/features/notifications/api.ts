import type { Severity } from "@driftwatch/client";
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { useClient } from "../../api/context";
import { channelKeys } from "../../api/keys";
import { apiRequest, seg } from "../../api/raw";

/*
 * Notification channels (issue 27): the shapes the issue states, with the field names of the
 * server being built for it (branch i27: `service`, `statusReason`, `groupSeconds` 0 = no
 * grouping, the test answer's `outcome`). The typed client has no `channels` resource yet here;
 * every call goes through `apiRequest` here, and only here (switch to `client.channels` at merge).
 */

export type ChannelEvent = "diff.detected" | "monitor.failing" | "monitor.recovered";

export interface QuietHours {
  /** An IANA time zone, e.g. `Europe/Berlin`. */
  timeZone: string;
  /** Windows as `HH:MM` local times; a window may run past midnight (`22:00`–`07:00`). */
  windows: Array<{ start: string; end: string; days?: Array<"mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun"> }>;
  /** Messages at or above this severity are sent during quiet hours anyway. */
  minSeverity?: Severity;
}

export interface Channel {
  id: string;
  name: string;
  /** The Apprise URL with its secrets masked. */
  url: string;
  /** The service the URL names (`slack`, `discord`, `email`, `msteams`, ...). */
  service?: string;
  minSeverity: Severity;
  tags: string[];
  events: ChannelEvent[];
  /** Changes within this many seconds go out as one message (0: each at once). */
  groupSeconds: number;
  quietHours: QuietHours | null;
  template: string | null;
  /** `failing` once the service said the hook is gone (with `statusReason`). */
  status: "ok" | "failing";
  statusReason?: string | null;
  paused: boolean;
  createdAt: string;
  updatedAt?: string;
}

export interface ChannelCreate {
  name: string;
  url: string;
  minSeverity?: Severity;
  tags?: string[];
  events?: ChannelEvent[];
  groupSeconds?: number;
  quietHours?: QuietHours | null;
  template?: string | null;
}

export type ChannelUpdate = Partial<ChannelCreate> & { paused?: boolean };

/** What the service answered to a test message. */
export interface ChannelTestResult {
  /** How the channel classified the service's answer. */
  outcome: "delivered" | "retry" | "gone" | "failed";
  status: number | null;
  /** The service's reason (its error text), null when delivered. */
  reason: string | null;
  /** Seconds the service asked to wait (a 429), or null. */
  retryAfterSeconds: number | null;
}

export interface ChannelDelivery {
  id: string;
  channelId: string;
  eventType: ChannelEvent;
  state: "pending" | "succeeded" | "failed";
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt?: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  monitorId?: string | null;
  diffId?: string | null;
  /** How many changes the message grouped (with `groupSeconds`). */
  changes?: number;
  createdAt: string;
}

const path = (id?: string, rest = ""): string => (id === undefined ? "/api/channels" : `/api/channels/${seg(id)}${rest}`);

export function useChannels(): UseQueryResult<Channel[]> {
  const client = useClient();
  return useQuery({
    queryKey: channelKeys.list(),
    queryFn: async () => (await apiRequest<{ data: Channel[] }>(client, "GET", path(), { query: { limit: 100 } })).data,
  });
}

/** `GET /api/monitors/{id}/channels`: a channel routed a monitor's events, and how (the server's routing). */
export interface MonitorChannel {
  channel: Channel;
  /** The monitor's events the channel takes. */
  events: ChannelEvent[];
  /** The lowest severity of a change that reaches it (the channel's or the monitor policy's, the higher). */
  minSeverity: Severity;
  /** The monitor's tags the channel names; empty when it takes every monitor. */
  matchedTags: string[];
  state: "active" | "paused" | "failing";
}

export function useMonitorChannels(monitorId: string): UseQueryResult<MonitorChannel[]> {
  const client = useClient();
  return useQuery({
    queryKey: channelKeys.monitor(monitorId),
    queryFn: async () => (await apiRequest<{ data: MonitorChannel[] }>(client, "GET", `/api/monitors/${seg(monitorId)}/channels`)).data,
  });
}

export function useChannel(id: string): UseQueryResult<Channel> {
  const client = useClient();
  return useQuery({ queryKey: channelKeys.detail(id), queryFn: () => apiRequest<Channel>(client, "GET", path(id)) });
}

export function useChannelDeliveries(id: string): UseQueryResult<ChannelDelivery[]> {
  const client = useClient();
  return useQuery({
    queryKey: channelKeys.deliveries(id),
    queryFn: async () => (await apiRequest<{ data: ChannelDelivery[] }>(client, "GET", path(id, "/deliveries"), { query: { limit: 50 } })).data,
  });
}

export function useCreateChannel() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ChannelCreate) => apiRequest<Channel>(client, "POST", path(), { body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: channelKeys.list() }),
  });
}

export function useUpdateChannel(id: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ChannelUpdate) => apiRequest<Channel>(client, "PATCH", path(id), { body }),
    onSuccess: (channel) => {
      queryClient.setQueryData(channelKeys.detail(id), channel);
      void queryClient.invalidateQueries({ queryKey: channelKeys.list() });
    },
  });
}

export function useDeleteChannel() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>(client, "DELETE", path(id)),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: channelKeys.all }),
  });
}

/** Sends a test message; the answer says what the service said. */
export function useTestChannel(id: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<ChannelTestResult>(client, "POST", path(id, "/test")),
    // a test can mark the channel failing (the hook is gone) or ok again
    onSettled: () => void queryClient.invalidateQueries({ queryKey: channelKeys.detail(id) }),
  });
}

/** Requeues one delivery (as for webhooks). */
export function useReplayChannelDelivery(id: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) => apiRequest<ChannelDelivery>(client, "POST", path(id, `/deliveries/${seg(deliveryId)}/retry`)),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: channelKeys.deliveries(id) }),
  });
}
