import type { NoiseProfile, PolicyRules, Settings } from "@driftwatch/client";
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { useClient } from "../../api/context";
import { channelKeys, monitorKeys } from "../../api/keys";

export type PolicyRule = PolicyRules["rules"][number];

export function useSettings(monitorId: string): UseQueryResult<Settings> {
  const client = useClient();
  return useQuery({ queryKey: monitorKeys.settings(monitorId), queryFn: async () => await client.settings.get(monitorId) });
}

export function useNoise(monitorId: string): UseQueryResult<NoiseProfile> {
  const client = useClient();
  return useQuery({ queryKey: monitorKeys.noise(monitorId), queryFn: async () => await client.monitors.noise(monitorId), staleTime: 60_000 });
}

/**
 * Changes the monitor's policy from its freshest stored version (read just before the write, so a
 * rule added from another tab is not lost) and stores the result.
 */
export function useChangePolicy(monitorId: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (change: (policy: PolicyRules) => PolicyRules) => {
      const current = await client.settings.get(monitorId);
      return client.settings.update(monitorId, { policyRules: change(current.policyRulesJson) });
    },
    onSuccess: (settings) => {
      queryClient.setQueryData(monitorKeys.settings(monitorId), settings);
      void queryClient.invalidateQueries({ queryKey: [...monitorKeys.detail(monitorId), "preview"] });
      // the policy's notify.minSeverity changes which channels get the monitor's changes
      void queryClient.invalidateQueries({ queryKey: channelKeys.monitor(monitorId) });
    },
  });
}

export function useSaveSettings(monitorId: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: Parameters<typeof client.settings.update>[1]) => await client.settings.update(monitorId, body),
    onSuccess: (settings) => {
      queryClient.setQueryData(monitorKeys.settings(monitorId), settings);
      void queryClient.invalidateQueries({ queryKey: monitorKeys.noise(monitorId) });
      void queryClient.invalidateQueries({ queryKey: channelKeys.monitor(monitorId) });
    },
  });
}

/** A rule first in the list (first match wins), replacing an earlier rule on the same target. */
export function withRuleFirst(policy: PolicyRules, rule: PolicyRule): PolicyRules {
  const same = (r: PolicyRule): boolean => r.path === rule.path && r.selector === rule.selector && r.op === rule.op && r.category === rule.category;
  return { ...policy, rules: [rule, ...(policy.rules ?? []).filter((r) => !same(r))] };
}
