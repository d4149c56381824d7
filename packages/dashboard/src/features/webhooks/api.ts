import type { Delivery, DeliveryDetail, Webhook, WebhookCreate, WebhookUpdate } from "@driftwatch/client";
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { allPages } from "../../api/all-pages";
import { useClient } from "../../api/context";
import { webhookKeys } from "../../api/keys";

export function useWebhooks(): UseQueryResult<Webhook[]> {
  const client = useClient();
  return useQuery({ queryKey: webhookKeys.list(), queryFn: () => allPages(client.webhooks.list({ limit: 100 }), 1000) });
}

export function useWebhook(id: string): UseQueryResult<Webhook> {
  const client = useClient();
  return useQuery({ queryKey: webhookKeys.detail(id), queryFn: async () => await client.webhooks.get(id) });
}

export function useDeliveries(id: string): UseQueryResult<Delivery[]> {
  const client = useClient();
  return useQuery({ queryKey: webhookKeys.deliveries(id), queryFn: async () => (await client.webhooks.deliveries(id, { limit: 50 })).data });
}

/** One delivery with its payload and attempt log, fetched when `enabled` (a person opened it). */
export function useDeliveryDetail(webhookId: string, deliveryId: string, enabled: boolean, attempts: number): UseQueryResult<DeliveryDetail> {
  const client = useClient();
  return useQuery({
    // the attempt count in the key: a replayed delivery's log is fetched again
    queryKey: [...webhookKeys.deliveries(webhookId), deliveryId, attempts],
    queryFn: async () => await client.webhooks.getDelivery(webhookId, deliveryId),
    enabled,
  });
}

export function useCreateWebhook() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WebhookCreate) => await client.webhooks.create(body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.list() }),
  });
}

export function useUpdateWebhook(id: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WebhookUpdate) => await client.webhooks.update(id, body),
    onSuccess: (webhook) => {
      queryClient.setQueryData(webhookKeys.detail(id), webhook);
      void queryClient.invalidateQueries({ queryKey: webhookKeys.list() });
    },
  });
}

export function useDeleteWebhook() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => await client.webhooks.delete(id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  });
}

export function useRotateSecret(id: string) {
  const client = useClient();
  return useMutation({ mutationFn: async () => await client.webhooks.rotateSecret(id) });
}

/** Requeues one delivery and runs the worker for this webhook at once, so the replay happens now. */
export function useReplayDelivery(webhookId: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (deliveryId: string) => {
      await client.webhooks.retryDelivery(webhookId, deliveryId);
      return client.webhooks.runWorker({ webhookId, force: true });
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(webhookId) }),
  });
}
