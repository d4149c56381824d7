import fs from "node:fs";
import path from "node:path";
import { defineLifecycleSuite } from "./lifecycle.case.js";
import { tempDir } from "./support.js";

defineLifecycleSuite("SQLite", async () => {
  const dir = tempDir("dw-e2e-sqlite-");
  return {
    url: `sqlite:${path.join(dir, "driftwatch.db")}`,
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});
