/** Contract documents built to make schema excerpts expensive (long keys, YAML aliases), for tests and manual timing. */

const longKey = (prefix: string, i: number, length: number): string => `${prefix}${String(i)}-${"k".repeat(length)}`;

/**
 * An OpenAPI 3.1 YAML document whose `GET /a` answer's property `p` requires `required` properties
 * (`r0`, `r1`, ...) and carries 25 long-key extensions, each an alias of an object of 25 long keys, each an alias of an
 * object of 25 long keys (`leafKeyLength`, default `keyLength`): three levels of 15,625 long keys
 * written once each.
 */
export function aliasedLongKeyYaml(options: { keyLength: number; required: number; leafKeyLength?: number }): string {
  const { keyLength, required } = options;
  const leafKeyLength = options.leafKeyLength ?? keyLength;
  const lines = ["openapi: 3.1.0", "info: { title: t, version: '1' }", "x-leaf: &leaf"];
  // an implicit YAML key is at most 1024 characters; an explicit one (`? key`) is any length
  for (let i = 0; i < 25; i++) lines.push(`  ? ${longKey("l", i, leafKeyLength)}`, "  : { type: string }");
  lines.push("x-mid: &mid");
  for (let i = 0; i < 25; i++) lines.push(`  ${longKey("m", i, keyLength)}: *leaf`);
  lines.push(
    "paths:",
    "  /a:",
    "    get:",
    "      operationId: a",
    "      responses:",
    "        '200':",
    "          description: ok",
    "          content:",
    "            application/json:",
    "              schema:",
    "                type: object",
    "                properties:",
    "                  p:",
    "                    type: object",
    `                    required: [${Array.from({ length: required }, (_, i) => `r${String(i)}`).join(", ")}]`,
  );
  for (let i = 0; i < 25; i++) lines.push(`                    x-${longKey("t", i, keyLength)}: *mid`);
  return `${lines.join("\n")}\n`;
}

/** The same schema as JSON: no aliases, the 15,625 long keys written out. */
export function longKeyJson(options: { keyLength: number; required: number }): string {
  const { keyLength, required } = options;
  const leaf = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [longKey("l", i, keyLength), { type: "string" }]));
  const mid = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [longKey("m", i, keyLength), leaf]));
  const p: Record<string, unknown> = { type: "object", required: Array.from({ length: required }, (_, i) => `r${String(i)}`) };
  for (let i = 0; i < 25; i++) p[`x-${longKey("t", i, keyLength)}`] = mid;
  const schema = { type: "object", properties: { p } };
  return JSON.stringify({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: { "/a": { get: { operationId: "a", responses: { "200": { description: "ok", content: { "application/json": { schema } } } } } } },
  });
}
