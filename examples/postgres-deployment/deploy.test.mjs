import assert from "node:assert/strict";
import { test } from "node:test";
import { deploy, dropDatabase } from "./deploy.mjs";

const adminUrl = process.env.DRIFTWATCH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

test("deploys on a fresh PostgreSQL database and keeps data across a graceful restart", { timeout: 90_000 }, async () => {
  const database = `dw_example_${process.pid}_${Date.now()}`;
  try {
    const lines = [];
    const result = await deploy({ adminUrl, database, log: (l) => lines.push(l) });
    assert.equal(result.afterRestart.id, result.monitorId);
    assert.equal(result.afterRestart.name, "status page");
    assert.equal(result.gracefulExit.code, 0, `graceful stop exits 0: ${lines.join("\n")}`);
  } finally {
    await dropDatabase(adminUrl, database);
  }
});
