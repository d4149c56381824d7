import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { monitorKeys } from "../api/keys";
import { fakeClient, monitor } from "../test-support";
import { applyLiveEvent } from "./apply";
import { keepLiveConnection, type LiveState } from "./useLiveEvents";

describe("live events", () => {
  it("reconnects after the stream ends, asks for a refetch, and stops for a revoked token", async () => {
    const ready = 'event: ready\ndata: {"type":"ready","requestId":"req_1"}\n\n';
    const check = `event: check\ndata: ${JSON.stringify({ type: "check", monitor: monitor(1, { state: "failing" }), diff: null })}\n\n`;
    const bodies = [ready + check, ready];
    let opened = 0;
    const { client } = fakeClient(() => undefined);
    // the fake transport's streams: each connection gets the next body, then the server "restarts"
    (client.http as unknown as { openStream: () => Promise<Response> }).openStream = async () => {
      opened++;
      if (opened > bodies.length) throw Object.assign(new Error("revoked"), { status: 401 });
      return new Response(bodies[opened - 1]!, { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const states: LiveState[] = [];
    const events: string[] = [];
    let reconnected = 0;
    await keepLiveConnection(client, {
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e.type),
      onState: (s) => states.push(s),
      onReconnected: () => reconnected++,
      delay: () => 0,
    });
    expect(opened).toBe(3);
    expect(events).toEqual(["check"]);
    expect(reconnected).toBe(1);
    expect(states).toEqual(["open", "retrying", "open", "retrying", "retrying"]);
  });

  it("applies a check event to the list, the monitor and its diffs in the cache", () => {
    const queryClient = new QueryClient();
    queryClient.setQueryData(monitorKeys.list(), [monitor(1), monitor(2)]);
    queryClient.setQueryData(monitorKeys.diffs("mon_000001"), { pages: [{ data: [], nextCursor: null }], pageParams: [undefined] });
    const diff = { id: "dif_9", monitorId: "mon_000001", topSeverity: "high" } as never;
    applyLiveEvent(queryClient, { type: "check", monitor: monitor(1, { lastChangedAt: "2026-11-25T09:10:00.000Z" }), diff });
    expect(queryClient.getQueryData<Array<{ lastChangedAt: string | null }>>(monitorKeys.list())![0]!.lastChangedAt).toBe("2026-11-25T09:10:00.000Z");
    expect(queryClient.getQueryData(monitorKeys.latestDiff("mon_000001"))).toBe(diff);
    expect(queryClient.getQueryData<{ pages: Array<{ data: unknown[] }> }>(monitorKeys.diffs("mon_000001"))!.pages[0]!.data).toEqual([diff]);
    // a second delivery of the same event changes nothing
    applyLiveEvent(queryClient, { type: "check", monitor: monitor(1), diff });
    expect(queryClient.getQueryData<{ pages: Array<{ data: unknown[] }> }>(monitorKeys.diffs("mon_000001"))!.pages[0]!.data).toHaveLength(1);
  });
});
