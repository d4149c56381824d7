import { defineDriftwatchConfig } from "../../tooling/tsup";

export default defineDriftwatchConfig();
