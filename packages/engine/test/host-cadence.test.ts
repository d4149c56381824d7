// 500 monitors at a 10 s interval on one fast host, on the memory store's leases: see host-cadence/suite.ts.
import { createMemoryStore } from "@driftwatch/store-memory";
import { hostCadenceSuite } from "./host-cadence/suite.js";

hostCadenceSuite({
  backend: "memory store, its leases",
  async open() {
    const store = await createMemoryStore();
    return { store, queue: () => undefined, close: () => store.close() };
  },
});
