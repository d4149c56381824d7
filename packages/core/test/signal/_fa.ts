import { measureWorld } from "./world-measure.ts";
const kind = (process.argv[2] ?? "json") as "json" | "html";
const modes = (process.argv[3] ?? "learned,first3").split(",") as any;
const { outcomes } = measureWorld([kind], modes, "tuning");
for (const [k, o] of outcomes) { console.log(k); for (const f of [...o.judged.falseAlarms, ...o.judged.misses.map((m) => "MISS " + m), ...o.judged.underRated.map((m) => "UNDER " + m)]) console.log("  ", f.slice(0, 260)); }
