import type { Store } from "@driftwatch/core";
import type { Delivery, Diff, Monitor } from "@driftwatch/schema";
import { presentDelivery, presentDiff, presentMonitor } from "../routes/present.js";

/**
 * What `GET /api/events/stream` pushes to the browsers of one organization. `check`: a check was
 * recorded (the monitor after it, and the new diff if there was one); `monitor`: a monitor changed
 * by other means (pause, resume, edit); `delivery`: a webhook delivery was attempted or requeued;
 * `resync`: events may have been missed (the link to the other processes was down), so what a
 * browser shows must be refetched; the stream sends it as a new `ready` event.
 */
export type LiveEvent =
  | { type: "check"; monitor: Monitor; diff: Diff | null }
  | { type: "monitor"; monitor: Monitor }
  | { type: "delivery"; delivery: Delivery }
  | { type: "resync" };

export type LiveListener = (event: LiveEvent) => void;

/** In-process publish/subscribe of live events, per organization. */
export interface EventHub {
  subscribe(orgId: string, listener: LiveListener): () => void;
  publish(orgId: string, event: LiveEvent): void;
  /** Publishes to the listeners of every organization. */
  broadcast(event: LiveEvent): void;
  /** Listeners of one organization (the stream route caps it). */
  listenerCount(orgId: string): number;
}

function deliver(set: ReadonlySet<LiveListener>, event: LiveEvent): void {
  for (const listener of [...set]) {
    try {
      listener(event);
    } catch {
      // one broken stream must not keep the others (or the store write) from going on
    }
  }
}

export function createEventHub(): EventHub {
  const listeners = new Map<string, Set<LiveListener>>();
  return {
    subscribe(orgId, listener) {
      let set = listeners.get(orgId);
      if (set === undefined) listeners.set(orgId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(orgId) === set) listeners.delete(orgId);
      };
    },
    publish(orgId, event) {
      const set = listeners.get(orgId);
      if (set !== undefined) deliver(set, event);
    },
    broadcast(event) {
      for (const set of [...listeners.values()]) deliver(set, event);
    },
    listenerCount(orgId) {
      return listeners.get(orgId)?.size ?? 0;
    },
  };
}

/**
 * The engine's hook for live events: the same store, whose successful writes of checks, monitor
 * changes and delivery attempts are also published to `hub`. Every other member is the store's
 * own (bound), so optional fast paths such as `getDiffJson` stay visible. Events reach browsers
 * connected to this process; on PostgreSQL, `createPostgresRelay` carries them to the other processes.
 */
export function observeStore(store: Store, hub: EventHub): Store {
  const wrapped: Partial<Store> = {
    async recordCheck(orgId, input) {
      const result = await store.recordCheck(orgId, input);
      hub.publish(orgId, { type: "check", monitor: presentMonitor(result.monitor), diff: result.diff === null ? null : presentDiff(result.diff) });
      return result;
    },
    async updateMonitor(orgId, id, patch) {
      const monitor = await store.updateMonitor(orgId, id, patch);
      if (monitor !== null) hub.publish(orgId, { type: "monitor", monitor: presentMonitor(monitor) });
      return monitor;
    },
    async recordDeliveryAttempt(id, owner, attempt) {
      const delivery = await store.recordDeliveryAttempt(id, owner, attempt);
      if (delivery !== null) hub.publish(delivery.orgId, { type: "delivery", delivery: presentDelivery(delivery) });
      return delivery;
    },
    async requeueDelivery(orgId, webhookId, id, now) {
      const delivery = await store.requeueDelivery(orgId, webhookId, id, now);
      if (delivery !== null) hub.publish(orgId, { type: "delivery", delivery: presentDelivery(delivery) });
      return delivery;
    },
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === "string" && Object.hasOwn(wrapped, property)) return wrapped[property as keyof Store];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
