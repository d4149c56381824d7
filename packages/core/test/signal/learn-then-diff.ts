// Learns from all fetches but the last with suggestPolicy and diffs the last one with what was
// learned, as the service does: the paths of the changes it still reports, sorted.
import { diffJson, suggestPolicy } from "../../src/index.js";

export function learnThenDiff(fetches: unknown[]): string[] {
  const history = fetches.slice(0, -1);
  const { policy } = suggestPolicy(history, { kind: "json" });
  const next = diffJson(
    history[history.length - 1],
    fetches[fetches.length - 1],
    { policy }
  );
  return (next?.changes.map((c) => c.path) ?? []).sort();
}
