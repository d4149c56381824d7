import { defineDriftwatchVitest } from "../../tooling/vitest";

export default defineDriftwatchVitest(import.meta.dirname);
