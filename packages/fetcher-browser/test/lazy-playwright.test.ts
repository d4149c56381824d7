// playwright-core is loaded on the first browser launch, not on import: a server that never checks
// a website (or not yet) does not pay its memory (about 80 MB; issue 26, docs/benchmarks.md).
// Checked in a child process of its own (tooling/lazy-load.ts). That the fetcher still launches
// and renders is browser-fetcher.test.ts's.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runLazyLoadCheck } from "../../../tooling/lazy-load";

const here = path.dirname(fileURLToPath(import.meta.url));

describe("playwright-core is loaded on first use", () => {
  it("importing the package and creating a fetcher loads no playwright-core", () => {
    const result = runLazyLoadCheck({
      cwd: here,
      packages: ["playwright-core"],
      before: `
const fetcherModule = await import("../src/index.ts");
const fetcher = fetcherModule.createBrowserFetcher({ allowPrivateNetworks: true });
`,
      after: `
await fetcher.close();
`,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.afterImport).toBe(0);
  }, 90_000);
});
