// A reader of `GET /api/events/stream` for the tests: opens the stream with a token and hands out
// its events as they come.

export interface SseEvent {
  event: string;
  data: Record<string, any>;
}

export interface EventStream {
  status: number;
  headers: Headers;
  /** The first event (not yet taken) that matches, waiting for it; throws when the stream ends first. */
  next(predicate?: (e: SseEvent) => boolean): Promise<SseEvent>;
  close(): void;
}

export async function openEventStream(baseUrl: string, secret: string): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/api/events/stream`, { headers: { authorization: `Bearer ${secret}` }, signal: controller.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const queue: SseEvent[] = [];
  async function next(predicate: (e: SseEvent) => boolean = () => true): Promise<SseEvent> {
    for (;;) {
      const index = queue.findIndex(predicate);
      if (index >= 0) return queue.splice(index, 1)[0]!;
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended");
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event !== undefined && data !== undefined) queue.push({ event, data: JSON.parse(data) as Record<string, any> });
      }
    }
  }
  return { status: response.status, headers: response.headers, next, close: () => controller.abort() };
}
