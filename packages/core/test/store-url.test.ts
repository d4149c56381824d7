// parseStoreUrl and redactStoreUrl: the pure reading of store URLs (opening them is the server's).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { isDriftwatchError, parseStoreUrl, redactStoreUrl } from "../src/index.js";

describe("parseStoreUrl", () => {
  it("reads memory:, sqlite: (relative, absolute, in-memory), file: and postgres URLs", () => {
    expect(parseStoreUrl("memory:")).toEqual({ kind: "memory" });
    expect(parseStoreUrl("sqlite:./data/dw.db", "/srv")).toEqual({ kind: "sqlite", filename: path.resolve("/srv", "data/dw.db") });
    expect(parseStoreUrl("sqlite:///var/lib/dw.db")).toEqual({ kind: "sqlite", filename: "/var/lib/dw.db" });
    expect(parseStoreUrl(pathToFileURL("/var/lib/dw.db").href)).toEqual({ kind: "sqlite", filename: "/var/lib/dw.db" });
    expect(parseStoreUrl("sqlite::memory:")).toMatchObject({ kind: "sqlite", filename: ":memory:" });
    expect(parseStoreUrl("postgresql://u:p@db:5432/x")).toEqual({ kind: "postgres", connectionString: "postgresql://u:p@db:5432/x" });
  });

  it.each([
    ["mysql://root@localhost/db", /Unknown store URL scheme "mysql:"/],
    ["redis://localhost", /Unknown store URL scheme "redis:"/],
    ["./driftwatch.db", /is not a store URL/],
    ["", /is not a store URL/],
    ["sqlite:", /needs a file path/],
    ["postgres://", /names no host/],
    ["postgresql://user:hunter2@[bad/db", /not a valid PostgreSQL URL/],
  ])("refuses %j with invalid_store_url, never echoing a password", (url, message) => {
    let error: unknown;
    try {
      parseStoreUrl(url);
    } catch (caught) {
      error = caught;
    }
    expect(isDriftwatchError(error) && error.code).toBe("invalid_store_url");
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain("hunter2");
  });

  it("redacts passwords only", () => {
    expect(redactStoreUrl("postgres://user:hunter2@db/x")).toBe("postgres://user:***@db/x");
    expect(redactStoreUrl("memory:")).toBe("memory:");
  });
});
