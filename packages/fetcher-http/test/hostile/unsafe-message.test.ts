// Hostile fixture (issue 12): the unsafe_url refusal says which rule refused a name, never what
// the name resolved to (the DNS answer is internal network topology).
import { describe, expect, it } from "vitest";
import { assertSafeUrl, createHttpFetcher, type LookupAll } from "../../src/index.js";

const answer = (address: string): LookupAll => () => Promise.resolve([{ address, family: address.includes(":") ? 6 : 4 }]);

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details?: unknown };
  }
  throw new Error("expected a refusal");
}

describe("unsafe_url messages", () => {
  it.each([
    ["10.23.45.67", "private"],
    ["169.254.169.254", "link-local"],
    ["127.0.0.9", "loopback"],
    ["fd12:3456::9", "unique-local"],
  ])("name the rule, not the address, for a name resolving to %s", async (address, rule) => {
    const error = await refusal(assertSafeUrl("https://innocent.example/", { lookup: answer(address) }));
    expect(error.code).toBe("unsafe_url");
    expect(error.message).toContain(`resolves to a ${rule} address`);
    expect(error.message).toContain("innocent.example");
    const everything = JSON.stringify({ message: error.message, details: error.details });
    expect(everything).not.toContain(address);
  });

  it("does not leak the answer through the fetcher either", async () => {
    const fetcher = createHttpFetcher({ lookup: answer("10.99.88.77") });
    const error = await refusal(fetcher.fetch({ url: "http://db.internal.example/" }));
    await fetcher.close();
    expect(error.code).toBe("unsafe_url");
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain("10.99.88.77");
  });
});
