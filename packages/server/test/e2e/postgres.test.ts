import { defineLifecycleSuite } from "./lifecycle.case.js";
import { createPostgresDatabase } from "./support.js";

// No skip: PostgreSQL is required (DRIFTWATCH_TEST_POSTGRES_URL points elsewhere).
defineLifecycleSuite("PostgreSQL", () => createPostgresDatabase("dw_e2e"));
