import { runStoreContract } from "@driftwatch/store-testkit";
import type { Store } from "@driftwatch/core";
import { createMemoryDatabase, createMemoryStore } from "../src/index.js";

// Each test gets a fresh database; every `open` is another store sharing its tables.
runStoreContract({
  name: "@driftwatch/store-memory",
  async create() {
    const database = createMemoryDatabase();
    const opened: Store[] = [];
    return {
      async open(options) {
        const store = await createMemoryStore({ database, ...(options?.hooks === undefined ? {} : { hooks: options.hooks }) });
        opened.push(store);
        return store;
      },
      async destroy() {
        await Promise.all(opened.splice(0).map((store) => store.close()));
      },
    };
  },
  capabilities: { sharedDatabase: true, rateLimits: true },
});
