import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { Driftwatch, LiveEvent } from "@driftwatch/client";
import { useClient } from "../api/context";
import { applyLiveEvent } from "./apply";

export type LiveState = "connecting" | "open" | "retrying";

const MAX_DELAY_MS = 30_000;

/**
 * Keeps one event stream open while signed in (fetch-based, so the bearer token is sent; the
 * browser's EventSource cannot send headers) and applies its events to the query cache. Reconnects
 * with back-off; after a reconnect the cached data is refetched, since events are not replayed.
 */
export interface LiveConnection {
  signal: AbortSignal;
  onEvent(event: LiveEvent): void;
  onState(state: LiveState): void;
  /** Called after a reconnect: events are not replayed, so what is shown must be refetched. */
  onReconnected(): void;
  /** Milliseconds before the next attempt after `failures` failures in a row (default: back-off with jitter). */
  delay?(failures: number): number;
}

function backoff(failures: number): number {
  return Math.min(MAX_DELAY_MS, 1000 * 2 ** Math.min(failures, 5)) * (0.75 + Math.random() * 0.25);
}

/**
 * Keeps one event stream open until `signal` aborts: reconnects with back-off when it ends or
 * fails, and stops for good on 401/403 (a revoked token will not come back).
 */
export async function keepLiveConnection(client: Driftwatch, c: LiveConnection): Promise<void> {
  let failures = 0;
  let connectedBefore = false;
  while (!c.signal.aborted) {
    try {
      for await (const event of client.events.stream({ signal: c.signal })) {
        if (event.type === "ready") {
          c.onState("open");
          failures = 0;
          if (connectedBefore) c.onReconnected();
          connectedBefore = true;
          continue;
        }
        c.onEvent(event);
      }
    } catch (error) {
      if (c.signal.aborted) return;
      const status = (error as { status?: number }).status;
      if (status === 401 || status === 403) {
        c.onState("retrying");
        return;
      }
    }
    if (c.signal.aborted) return;
    c.onState("retrying");
    failures++;
    const wait = (c.delay ?? backoff)(failures);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * Keeps one event stream open while signed in (fetch-based, so the bearer token is sent; the
 * browser's EventSource cannot send headers) and applies its events to the query cache.
 */
export function useLiveEvents(): LiveState {
  const client = useClient();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");
  useEffect(() => {
    const controller = new AbortController();
    void keepLiveConnection(client, {
      signal: controller.signal,
      onEvent: (event) => applyLiveEvent(queryClient, event),
      onState: setState,
      onReconnected: () => void queryClient.invalidateQueries(),
    });
    return () => controller.abort();
  }, [client, queryClient]);
  return state;
}
