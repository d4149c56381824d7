import {
  createDeliveryService as createEngineDeliveryService,
  DELIVERY_TIMEOUT_MS,
  type DeliveryServiceOptions as EngineDeliveryServiceOptions,
  type EngineDeliveryService,
} from "@driftwatch/engine";
import { createWebhookTransport, type GuardOptions } from "@driftwatch/fetcher-http";
import type { Dispatcher } from "undici";

export interface DeliveryServiceOptions extends EngineDeliveryServiceOptions {
  /** @deprecated Pass `transport: createWebhookTransport({ dispatcher })` (@driftwatch/fetcher-http). */
  dispatcher?: Dispatcher;
  /** @deprecated Pass `transport: createWebhookTransport(guard)` (@driftwatch/fetcher-http). */
  guard?: GuardOptions;
}

/**
 * `createDeliveryService` of @driftwatch/engine as the server has always exported it: without a
 * `transport`, webhooks go out through fetcher-http's SSRF-guarded transport built from `guard`
 * (or through `dispatcher`), which `close()` closes.
 */
export function createDeliveryService(options: DeliveryServiceOptions): EngineDeliveryService {
  const { dispatcher, guard, ...rest } = options;
  if (rest.transport !== undefined) return createEngineDeliveryService(rest);
  const transport = createWebhookTransport({
    ...guard,
    connectTimeoutMs: rest.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    ...(dispatcher === undefined ? {} : { dispatcher }),
  });
  const service = createEngineDeliveryService({ ...rest, transport });
  return {
    ...service,
    async close() {
      await service.close();
      await transport.close();
    },
  };
}
