// A process for multiprocess.test.ts: opens the store on a database (migrating it when new),
// creates one organization, and exits. Run with node --import tsx.
import { createPostgresStore } from "../src/index.js";

const [url, slug] = process.argv.slice(2);
if (url === undefined || slug === undefined) throw new Error("usage: migrate-child.ts <url> <slug>");
const store = await createPostgresStore({ connectionString: url, max: 1 });
await store.createOrganization({ slug });
await store.close();
process.stdout.write("done\n");
