import { worldSplit } from "./world-corpus.ts";
const { tuning } = worldSplit();
const get = (o: any, p: string) => p.split(".").reduce((a, k) => a?.[k], o);
for (const spec of process.argv.slice(2)) {
  const [n, ...paths] = spec.split(":");
  const h = tuning.find((x) => x.name.endsWith(n!));
  if (!h) continue;
  console.log(h.name);
  for (const p of paths[0]!.split(",")) console.log("  ", p, h.snapshots.map((s) => JSON.stringify(get(s, p))).join(" "));
  console.log("  labels", h.labels.map((l: any) => (l.kind === "noise" ? "n" : "M")).join(""), h.labels.filter((l: any) => l.kind !== "noise").map((l: any) => l.what).join(" | "));
}
