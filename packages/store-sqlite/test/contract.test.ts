import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Store } from "@driftwatch/core";
import { runStoreContract } from "@driftwatch/store-testkit";
import { createSqliteStore } from "../src/index.js";

// Each test gets a fresh file in its own temp folder; `open` may be called more than once,
// giving a second connection on the same file for the concurrency tests.
runStoreContract({
  name: "@driftwatch/store-sqlite",
  async create() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-contract-"));
    const filename = path.join(dir, "driftwatch.db");
    const stores: Store[] = [];
    return {
      async open(options) {
        const store = await createSqliteStore({ filename, ...(options?.hooks === undefined ? {} : { hooks: options.hooks }) });
        stores.push(store);
        return store;
      },
      async destroy() {
        for (const store of stores.splice(0)) await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  capabilities: { sharedDatabase: true, rateLimits: true },
});
