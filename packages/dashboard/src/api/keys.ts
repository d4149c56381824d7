/** TanStack Query keys, one factory per resource, so that mutations invalidate precisely. */
export const monitorKeys = {
  all: ["monitors"] as const,
  list: () => [...monitorKeys.all, "list"] as const,
  detail: (id: string) => [...monitorKeys.all, "detail", id] as const,
  diffs: (id: string) => [...monitorKeys.all, "detail", id, "diffs"] as const,
  latestDiff: (id: string) => [...monitorKeys.all, "detail", id, "latest-diff"] as const,
  recentDiffs: (id: string) => [...monitorKeys.all, "detail", id, "recent-diffs"] as const,
  diff: (id: string, diffId: string) => [...monitorKeys.all, "detail", id, "diff", diffId] as const,
  settings: (id: string) => [...monitorKeys.all, "detail", id, "settings"] as const,
  noise: (id: string) => [...monitorKeys.all, "detail", id, "noise"] as const,
  preview: (id: string, policy: string, limit: number) => [...monitorKeys.all, "detail", id, "preview", policy, limit] as const,
  compare: (id: string, from: string, to: string, policy: string) => [...monitorKeys.all, "detail", id, "compare", from, to, policy] as const,
};

export const webhookKeys = {
  all: ["webhooks"] as const,
  list: () => [...webhookKeys.all, "list"] as const,
  detail: (id: string) => [...webhookKeys.all, "detail", id] as const,
  deliveries: (id: string) => [...webhookKeys.all, "detail", id, "deliveries"] as const,
};

export const tokenKeys = {
  all: ["tokens"] as const,
  list: () => [...tokenKeys.all, "list"] as const,
};

export const peopleKeys = {
  members: (orgId: string) => ["people", "members", orgId] as const,
  invites: () => ["people", "invites"] as const,
  org: (orgId: string) => ["people", "org", orgId] as const,
  audit: (cursor: string | null) => ["people", "audit", cursor] as const,
};

export const channelKeys = {
  all: ["channels"] as const,
  list: () => [...channelKeys.all, "list"] as const,
  detail: (id: string) => [...channelKeys.all, "detail", id] as const,
  deliveries: (id: string) => [...channelKeys.all, "detail", id, "deliveries"] as const,
  /** The channels a monitor reaches (under `all`: a channel's change refreshes it). */
  monitor: (monitorId: string) => [...channelKeys.all, "monitor", monitorId] as const,
};
