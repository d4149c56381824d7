// The typed client against a driftwatch server. Uses DRIFTWATCH_URL and DRIFTWATCH_TOKEN when set;
// otherwise starts a local server on a throwaway SQLite file. Watches a small local JSON API,
// changes it, and prints the structured diff and the change history.
import http from "node:http";
import { pathToFileURL } from "node:url";
import { Driftwatch, NotFoundError } from "@driftwatch/client";
import { startLocalServer } from "./local-server.mjs";

export async function main({ log = console.log } = {}) {
  // A tiny API to watch, on loopback.
  let catalog = { updatedAt: "2026-11-01T00:00:00Z", items: [{ sku: "A-1", price: 10 }, { sku: "B-2", price: 12 }] };
  const api = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(catalog));
  });
  await new Promise((r) => api.listen(0, "127.0.0.1", r));
  const targetUrl = `http://127.0.0.1:${api.address().port}/catalog.json`;

  const local = process.env.DRIFTWATCH_URL ? null : await startLocalServer();
  const client = new Driftwatch({
    baseUrl: process.env.DRIFTWATCH_URL ?? local.baseUrl,
    token: process.env.DRIFTWATCH_TOKEN ?? local.token,
  });
  try {
    const monitor = await client.monitors.create({ type: "api", name: "catalog", url: targetUrl, intervalSeconds: 3600 });
    log(`created ${monitor.id} (${monitor.state})`);
    await client.settings.update(monitor.id, {
      policyRules: { rules: [{ path: "$..updatedAt", action: "ignore" }], arrayKeys: { "$.items": "sku" } },
    });

    const first = await client.monitors.check(monitor.id);
    log(`first check: snapshot ${first.snapshot.id}, diff ${first.diff ? first.diff.id : "none (baseline)"}`);

    catalog = { updatedAt: "2026-11-02T00:00:00Z", items: [{ sku: "Z-0", price: 5 }, { sku: "A-1", price: "10" }, { sku: "B-2", price: 12 }] };
    const { data: second, requestId } = await client.monitors.check(monitor.id).withResponse();
    const diff = second.diff;
    if (!diff) throw new Error("expected a diff after the catalog changed");
    log(`second check (${requestId}): ${diff.classification}, top severity ${diff.topSeverity}`);
    for (const change of diff.changes) log(`  ${change.severity.padEnd(8)} ${change.category.padEnd(6)} ${change.op.padEnd(7)} ${change.path}`);

    let count = 0;
    for await (const d of client.diffs.list(monitor.id, { limit: 10 })) {
      count++;
      log(`history: ${d.id} ${d.classification} ${d.createdAt}`);
    }

    await client.monitors.delete(monitor.id);
    try {
      await client.monitors.get(monitor.id);
    } catch (error) {
      if (error instanceof NotFoundError) log(`deleted; a read now answers ${error.status} ${error.code} (${error.requestId})`);
      else throw error;
    }
    return { diff, historyLength: count };
  } finally {
    await local?.stop();
    await new Promise((r) => api.close(r));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
