import { defineMatrixSuite } from "./people-matrix.case.js";
import { definePeopleSuite } from "./people.case.js";

const memory = async () => ({ url: "memory:", drop: async () => undefined });

definePeopleSuite("memory", memory);
defineMatrixSuite("memory", memory);
