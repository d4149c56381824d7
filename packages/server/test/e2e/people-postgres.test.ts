import { defineMatrixSuite } from "./people-matrix.case.js";
import { definePeopleSuite } from "./people.case.js";
import { createPostgresDatabase } from "./support.js";

// No skip: PostgreSQL is required (DRIFTWATCH_TEST_POSTGRES_URL points elsewhere).
definePeopleSuite("PostgreSQL", () => createPostgresDatabase("dw_people"));
defineMatrixSuite("PostgreSQL", () => createPostgresDatabase("dw_matrix"));
