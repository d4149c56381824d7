// Process-level test (issue 12, CRITICAL): hostile pages (popups by window.open, by a scripted
// target=_blank click, in a loop, into private space, while the render closes; a scripted
// navigation inward; egress attempts; a renderer crashing on its heap cap) rendered in a child process that counts unhandled
// rejections and uncaught exceptions. Nothing may escape and every render ends as a result or a
// FetchError.
import { execFile } from "node:child_process";
import path from "node:path";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";

interface ChildResult {
  outcomes: Array<{ path: string; status?: number; code?: string; mainShown: boolean }>;
  escaped: string[];
  internalConnections: number;
  sitePaths: string[];
}

function runChild(): Promise<ChildResult> {
  const script = path.join(import.meta.dirname, "process-child.ts");
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--conditions=@driftwatch/source", "--import", "tsx", script, inject("runMarker"), inject("pidFile")],
      { cwd: path.join(import.meta.dirname, "..", ".."), maxBuffer: 16 * 1024 * 1024, timeout: 150_000 },
      (error, stdout, stderr) => {
        const line = stdout.trim().split("\n").pop() ?? "";
        if (error !== null) {
          reject(new Error(`child failed (${String(error.code)} ${String(error.signal)}): ${stderr.slice(-2000)}`));
          return;
        }
        try {
          resolve(JSON.parse(line) as ChildResult);
        } catch {
          reject(new Error(`child printed no result: ${stdout.slice(-500)} ${stderr.slice(-2000)}`));
        }
      },
    );
  });
}

describe("hostile pages in a child process", () => {
  it("let nothing escape: popups closed, guarded, every render a result or a FetchError", async () => {
    const result = await runChild();
    console.info(JSON.stringify(result.outcomes));
    expect(result.escaped).toEqual([]);
    const byPath = (p: string) => result.outcomes.filter((o) => o.path === p);
    for (const p of ["/popup-open", "/popup-blank", "/popup-loop", "/popup-inward"]) {
      expect(byPath(p)[0], p).toMatchObject({ status: 200, mainShown: true });
    }
    expect(byPath("/popup-late")[0]).toMatchObject({ status: 200, mainShown: true });
    // A script that navigates the page into private space is reported, not snapshotted.
    expect(byPath("/navigate-inward")[0]).toMatchObject({ code: "unsafe_url" });
    expect(byPath("/egress")[0]).toMatchObject({ status: 200 });
    // The cut-short renders end as the caller's abort (not a FetchError code: the caller's reason).
    const cut = result.outcomes.slice(7, 9);
    for (const o of cut) expect(o.code).toMatch(/^not a FetchError: Error: caller gave up$|^timeout$/);
    // Ends one way or the other, within its deadline, as a result or a FetchError.
    const last = result.outcomes[9];
    expect(last?.status === 200 || last?.code === "timeout", JSON.stringify(last)).toBe(true);
    expect(byPath("/allocate")[0]).toMatchObject({ code: "browser_failed" });
    // Popups are closed before anything of theirs is fetched, and nothing reached the inside.
    expect(result.sitePaths.filter((p) => p.startsWith("/popup-target") || p === "/popup-fetch")).toEqual([]);
    expect(result.internalConnections).toBe(0);
  }, 180_000);
});
