import { worldSplit } from "./test/signal/world-corpus.js";
import { evaluateHistory } from "./test/signal/service-like.js";
const { tuning } = worldSplit();
const kind = process.argv[2] ?? "json";
const fa: string[] = [], ur: string[] = [], ms: string[] = [];
for (const h of tuning) {
  if (h.kind !== kind) continue;
  const r = evaluateHistory(h, { mode: "learned" });
  fa.push(...r.judged.falseAlarms); ur.push(...r.judged.underRated); ms.push(...r.judged.misses);
}
console.log("FA", fa.length, "UR", ur.length, "MISS", ms.length);
for (const x of fa.slice(0, Number(process.argv[3] ?? 60))) console.log("FA", x.slice(0, 260));
for (const x of ur) console.log("UR", x.slice(0, 260));
for (const x of ms) console.log("MISS", x.slice(0, 260));
