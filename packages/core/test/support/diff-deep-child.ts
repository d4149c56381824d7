// Run by json-walks.test.ts in a child process with a small --stack-size: diffs two documents
// nested just below the recursion limit and prints the change paths (or the error) as JSON.
import { diffJson } from "../../src/index.js";

const levels = Number(process.argv[2]);
let a: unknown = { v: 1 };
let b: unknown = { v: 2 };
for (let i = 0; i < levels; i++) {
  a = i % 2 ? [a] : { w: a };
  b = i % 2 ? [b] : { w: b };
}
try {
  console.log(JSON.stringify({ paths: diffJson(a, b)?.changes.map((c) => c.path) }));
} catch (error) {
  console.log(JSON.stringify({ error: (error as Error).name, message: (error as Error).message }));
}
