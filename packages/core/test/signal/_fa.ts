import { measureWorld } from "./world-measure.ts";
const mode = (process.argv[2] ?? "learned") as any;
const { outcomes } = measureWorld(["json"], [mode], "tuning");
const o = outcomes.get(`tuning/json/${mode}`)!;
for (const l of [...o.judged.falseAlarms, ...o.judged.underRated, ...o.judged.misses]) console.log(l.slice(0, 260));
