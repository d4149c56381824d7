// A child process of compare-builds.ts: serves one diff, from a build of @driftwatch/server
// (`build <server package dir>`) or from a bare Fastify route (`bare`, the JSON it gets in its
// first message), in a process of its own, so no two servers share an event loop, a CPU clock, or
// the JIT's view of one copy of Fastify. Over IPC it reports where it serves, its CPU time on
// request ("cpu"), and closes on "close".
import path from "node:path";
import { pathToFileURL } from "node:url";
import Fastify from "fastify";
import type { createDriftwatchServer } from "../src/service.js";
import { ownCpuTime, serveOneDiff, startDiffTarget, tempDir } from "./support.js";

/** What the child sends first: how to GET its diff. */
export interface ServingMessage {
  base: string;
  diffPath: string;
  headers: Record<string, string>;
  servedText: string;
}

const send = (message: unknown): void => void process.send!(message);
const [mode, dir] = process.argv.slice(2);
let close: () => Promise<void>;

if (mode === "build") {
  const build = (await import(pathToFileURL(path.resolve(dir!, "dist/index.js")).href)) as { createDriftwatchServer: typeof createDriftwatchServer };
  const temp = tempDir("dw-server-builds-");
  const target = await startDiffTarget();
  const served = await serveOneDiff(build.createDriftwatchServer, temp.dir, target, process.env.DRIFTWATCH_LOG_LEVEL ?? "info");
  close = async () => {
    await served.close();
    await target.close();
    temp.remove();
  };
  send({ base: served.base, diffPath: served.diffPath, headers: served.headers, servedText: served.servedText } satisfies ServingMessage);
} else {
  const { diffPath, servedText } = await new Promise<ServingMessage>((resolve) => process.once("message", (m) => resolve(m as ServingMessage)));
  const body = JSON.parse(servedText) as unknown;
  // The same route shape returning the same object (serialised per request by Fastify).
  const bare = Fastify({ logger: false });
  bare.get("/api/monitors/:id/diffs/:diffId", async () => body);
  const base = await bare.listen({ port: 0, host: "127.0.0.1" });
  const text = await (await fetch(base + diffPath)).text();
  if (text !== servedText) throw new Error("the bare route does not answer the same bytes as the server");
  close = () => bare.close();
  send({ base, diffPath, headers: {}, servedText: text } satisfies ServingMessage);
}

process.on("message", (message) => {
  if (message === "cpu") void ownCpuTime().then((us) => send({ cpu: us }));
  if (message === "close") void close().then(() => process.exit(0));
});
