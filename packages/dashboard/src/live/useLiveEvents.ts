import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useClient } from "../api/context";
import { applyLiveEvent } from "./apply";

export type LiveState = "connecting" | "open" | "retrying";

const MAX_DELAY_MS = 30_000;

/**
 * Keeps one event stream open while signed in (fetch-based, so the bearer token is sent; the
 * browser's EventSource cannot send headers) and applies its events to the query cache. Reconnects
 * with back-off; after a reconnect the cached data is refetched, since events are not replayed.
 */
export function useLiveEvents(): LiveState {
  const client = useClient();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");
  useEffect(() => {
    const controller = new AbortController();
    let failures = 0;
    let connectedBefore = false;
    void (async () => {
      while (!controller.signal.aborted) {
        try {
          for await (const event of client.events.stream({ signal: controller.signal })) {
            if (event.type === "ready") {
              setState("open");
              failures = 0;
              if (connectedBefore) void queryClient.invalidateQueries();
              connectedBefore = true;
              continue;
            }
            applyLiveEvent(queryClient, event);
          }
        } catch (error) {
          if (controller.signal.aborted) return;
          const status = (error as { status?: number }).status;
          // a revoked token will not come back: stop instead of hammering the server
          if (status === 401 || status === 403) {
            setState("retrying");
            return;
          }
        }
        if (controller.signal.aborted) return;
        setState("retrying");
        failures++;
        const delay = Math.min(MAX_DELAY_MS, 1000 * 2 ** Math.min(failures, 5)) * (0.75 + Math.random() * 0.25);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    })();
    return () => controller.abort();
  }, [client, queryClient]);
  return state;
}
