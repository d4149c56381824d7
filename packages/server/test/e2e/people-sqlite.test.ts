import fs from "node:fs";
import path from "node:path";
import { defineMatrixSuite } from "./people-matrix.case.js";
import { definePeopleSuite } from "./people.case.js";
import { tempDir } from "./support.js";

async function sqliteDatabase() {
  const dir = tempDir("dw-people-sqlite-");
  return { url: `sqlite:${path.join(dir, "driftwatch.db")}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

definePeopleSuite("SQLite", sqliteDatabase);
defineMatrixSuite("SQLite", sqliteDatabase);
