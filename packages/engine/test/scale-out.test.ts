// Several engine processes on one PostgreSQL database on the store's lease queue: see scale-out/suite.ts.
import { scaleOutSuite } from "./scale-out/suite.js";

await scaleOutSuite({ queue: "the store's leases" });
