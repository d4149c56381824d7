import { childPointer, deref, type JsonObject, type Location, type OpenApiDocument } from "./document.js";
import { OpenApiError } from "./errors.js";
import { canonicalJson, Fingerprints } from "./fingerprint.js";
import { type ChangeLevel, type ChangeSeverity, getRule, isRuleId, type RuleId } from "./rules.js";

/** One API change between two versions of a document. */
export interface OpenApiChange {
  /** The rule id (oasdiff's), stable and documented in docs/contracts.md. */
  readonly id: RuleId;
  readonly level: ChangeLevel;
  readonly severity: ChangeSeverity;
  /** `METHOD /path` of the operation, absent for document-wide changes. */
  readonly operation?: string;
  /** JSON pointer of the changed element: in the revision, or in the base when it was removed. */
  readonly path?: string;
  /** What changed, for a developer. */
  readonly message: string;
}

export interface DiffOptions {
  /**
   * Today's date (YYYY-MM-DD) for sunset checks: an operation removed before its `x-sunset` date
   * is breaking. Default: the current UTC date.
   */
  readonly today?: string;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const STABILITY = ["draft", "alpha", "beta", "stable"] as const;
type Stability = (typeof STABILITY)[number];
type Direction = "request" | "response";

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly location: Location;
  readonly pathItem: Location;
}

const LEVEL_RANK: Record<ChangeLevel, number> = { breaking: 0, "potentially-breaking": 1, "non-breaking": 2 };

/**
 * The API changes from `base` to `revision`, with oasdiff's rule ids and levels, breaking first.
 * Work is bounded by `limits.maxSchemaVisits` of the revision (`too_complex` beyond it): schema
 * pairs visited and members of schemas read.
 */
export function diffOpenApi(base: OpenApiDocument, revision: OpenApiDocument, options: DiffOptions = {}): OpenApiChange[] {
  const differ = new Differ(base, revision, options.today ?? new Date().toISOString().slice(0, 10));
  differ.run();
  return differ.changes
    .map((change, index) => ({ change, index }))
    .sort((a, b) => LEVEL_RANK[a.change.level] - LEVEL_RANK[b.change.level] || a.index - b.index)
    .map(({ change }) => change);
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function child(location: Location, key: string | number): Location {
  const value = location.value;
  const next = Array.isArray(value) ? value[key as number] : isObject(value) ? value[key as string] : undefined;
  return { doc: location.doc, pointer: childPointer(location.pointer, key), value: next };
}

function normalizePath(path: string): string {
  return path.replace(/\{[^}]*\}/g, "{}").replace(/\/+$/, "") || "/";
}

function stabilityOf(value: unknown): Stability | "invalid" | undefined {
  if (!isObject(value)) return undefined;
  const level = value["x-stability-level"];
  if (level === undefined) return undefined;
  return (STABILITY as readonly unknown[]).includes(level) ? (level as Stability) : "invalid";
}

function sunsetOf(value: JsonObject): string | undefined {
  const sunset = value["x-sunset"];
  if (typeof sunset === "string") return sunset;
  if (sunset instanceof Date) return sunset.toISOString().slice(0, 10);
  return undefined;
}

function parseSunset(sunset: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(sunset.trim());
  if (match !== null && !Number.isNaN(Date.parse(match[1]!))) return match[1];
  const time = Date.parse(sunset); // RFC 8594 allows an HTTP date
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}

class Differ {
  readonly changes: OpenApiChange[] = [];
  private readonly baseFp: Fingerprints;
  private readonly revFp: Fingerprints;
  private visits = 0;
  /** Finding trees reported in the current operation (see replay). */
  private readonly diffedInOperation = new Set<FindingNode>();
  /** Finding trees by schema pair and position, shared by every operation that reaches the pair. */
  private readonly nodes = new Map<string, FindingNode | null>();
  /** Set while diffing an operation whose base stability is draft or alpha. */
  private unstable: Stability | undefined;

  constructor(
    private readonly base: OpenApiDocument,
    private readonly rev: OpenApiDocument,
    private readonly today: string,
  ) {
    const shapes = new Map<string, string>();
    this.baseFp = new Fingerprints(base, shapes);
    this.revFp = new Fingerprints(rev, shapes);
  }

  emit(id: string, message: string, operation: string | undefined, path: string | undefined): void {
    if (!isRuleId(id)) return; // composed ids without an oasdiff rule (e.g. a min on a response) are no change
    const rule = getRule(id)!;
    let level = rule.level;
    let severity = rule.severity;
    let text = message;
    // oasdiff leaves draft and alpha operations out of breaking-change detection; we keep the
    // change visible but never breaking.
    if (this.unstable !== undefined && level !== "non-breaking" && !id.startsWith("api-stability")) {
      level = "non-breaking";
      severity = "info";
      text = `${message} (not breaking: the operation's x-stability-level is ${this.unstable})`;
    }
    this.changes.push({
      id,
      level,
      severity,
      ...(operation === undefined ? {} : { operation }),
      ...(path === undefined ? {} : { path }),
      message: text,
    });
  }

  private pointerOf(location: Location, doc: OpenApiDocument): string {
    return location.doc === doc.url ? location.pointer : `${location.doc}#${location.pointer}`;
  }

  /**
   * Counts work against `maxSchemaVisits`: one per schema pair visited, and one per member
   * (property, enum value, required name) read from a schema. A member list shared through YAML
   * aliases sits at many places, each its own schema pair, and is read at each (issue 30).
   */
  private tick(steps = 1): void {
    this.visits += steps;
    if (this.visits > this.rev.limits.maxSchemaVisits) {
      throw new OpenApiError("too_complex", `the diff takes more than ${this.rev.limits.maxSchemaVisits} steps (schema pairs visited, members read)`);
    }
  }

  run(): void {
    this.diffGlobalSecurity();
    this.diffWebhooks();
    const baseOps = this.operations(this.base);
    const revOps = this.operations(this.rev);
    const basePaths = new Map<string, Operation[]>();
    for (const op of baseOps.values()) basePaths.set(normalizePath(op.path), [...(basePaths.get(normalizePath(op.path)) ?? []), op]);
    const revPaths = new Set([...revOps.values()].map((op) => normalizePath(op.path)));

    for (const [key, baseOp] of baseOps) {
      const revOp = revOps.get(key);
      if (revOp === undefined) this.operationRemoved(baseOp, !revPaths.has(normalizePath(baseOp.path)));
      else this.diffOperation(baseOp, revOp);
    }
    for (const [key, revOp] of revOps) {
      if (baseOps.has(key)) continue;
      this.emit("endpoint-added", `endpoint added`, label(revOp), this.pointerOf(revOp.location, this.rev));
    }
  }

  // 3.1 webhooks: the API calls the client, so a removed webhook is an event the client stops getting
  private diffWebhooks(): void {
    const from = isObject(this.base.root.webhooks) ? this.base.root.webhooks : {};
    const to = isObject(this.rev.root.webhooks) ? this.rev.root.webhooks : {};
    for (const name of Object.keys(from)) {
      if (!Object.hasOwn(to, name)) this.emit("webhook-removed", `webhook ${JSON.stringify(name)} removed`, undefined, childPointer("/webhooks", name));
    }
    for (const name of Object.keys(to)) {
      if (!Object.hasOwn(from, name)) this.emit("webhook-added", `webhook ${JSON.stringify(name)} added`, undefined, childPointer("/webhooks", name));
    }
  }

  private operations(doc: OpenApiDocument): Map<string, Operation> {
    const result = new Map<string, Operation>();
    const paths: Location = { doc: doc.url, pointer: "/paths", value: doc.root.paths };
    if (!isObject(paths.value)) return result;
    for (const path of Object.keys(paths.value)) {
      const pathItem = deref(doc, child(paths, path));
      if (!isObject(pathItem.value)) continue;
      for (const method of METHODS) {
        const op = child(pathItem, method);
        if (!isObject(op.value)) continue;
        result.set(`${method} ${normalizePath(path)}`, { method, path, location: op, pathItem });
      }
    }
    return result;
  }

  // --- operations -------------------------------------------------------------------------------

  private operationRemoved(op: Operation, wholePath: boolean): void {
    const value = op.location.value as JsonObject;
    const stability = stabilityOf(value);
    if (stability === "draft" || stability === "alpha") return; // as oasdiff: not checked
    const where = this.pointerOf(op.location, this.base);
    const name = label(op);
    const kind = wholePath ? "api-path-removed" : "api-removed";
    const what = wholePath ? "path removed" : "operation removed";
    if (value.deprecated !== true) {
      this.emit(`${kind}-without-deprecation`, `${what} without deprecation`, name, where);
      return;
    }
    const sunset = sunsetOf(value);
    if (sunset === undefined) {
      this.emit(`${kind}-with-deprecation`, `${what} after deprecation (no sunset date)`, name, where);
      return;
    }
    const date = parseSunset(sunset);
    if (date === undefined) {
      this.emit("api-path-sunset-parse", `${what}: its x-sunset ${JSON.stringify(sunset)} is not a date`, name, where);
      return;
    }
    if (this.today < date) this.emit(`${kind}-before-sunset`, `${what} before its sunset date ${date}`, name, where);
    // removed on or after its sunset date: as announced, no change to report (as oasdiff)
  }

  private diffOperation(baseOp: Operation, revOp: Operation): void {
    const b = baseOp.location.value as JsonObject;
    const r = revOp.location.value as JsonObject;
    if (this.baseFp.of(baseOp.location) === this.revFp.of(revOp.location) && this.samePathParams(baseOp, revOp)) return;
    const name = label(revOp);
    const where = this.pointerOf(revOp.location, this.rev);
    const baseStability = stabilityOf(b);
    const revStability = stabilityOf(r);
    this.diffStability(baseStability, revStability, name, where);
    this.unstable = baseStability === "draft" || baseStability === "alpha" ? baseStability : undefined;
    this.diffedInOperation.clear();
    try {
      this.diffDeprecation(b, r, name, where);
      this.diffOperationId(b, r, name, where);
      this.diffTags(b, r, name, where);
      this.diffSecurity(b.security, r.security, name, where, "api");
      this.diffParameters(baseOp, revOp, name);
      this.diffRequestBody(baseOp, revOp, name);
      this.diffResponses(baseOp, revOp, name);
    } finally {
      this.unstable = undefined;
    }
  }

  private samePathParams(baseOp: Operation, revOp: Operation): boolean {
    const b = isObject(baseOp.pathItem.value) ? baseOp.pathItem.value.parameters : undefined;
    const r = isObject(revOp.pathItem.value) ? revOp.pathItem.value.parameters : undefined;
    if (b === undefined && r === undefined) return true;
    return this.baseFp.of(child(baseOp.pathItem, "parameters")) === this.revFp.of(child(revOp.pathItem, "parameters"));
  }

  private diffStability(b: Stability | "invalid" | undefined, r: Stability | "invalid" | undefined, name: string, where: string): void {
    if (r === "invalid") {
      this.emit("api-invalid-stability-level", `x-stability-level is not one of draft, alpha, beta, stable`, name, where);
      return;
    }
    if (b === "invalid") return;
    const from = STABILITY.indexOf(b ?? "stable");
    const to = STABILITY.indexOf(r ?? "stable");
    if (from === to || from < STABILITY.indexOf("beta")) return; // only levels at or above beta are reported
    if (to < from) this.emit("api-stability-decreased", `stability level decreased from ${STABILITY[from]} to ${STABILITY[to]}`, name, where);
    else this.emit("api-stability-increased", `stability level increased from ${STABILITY[from]} to ${STABILITY[to]}`, name, where);
  }

  private diffDeprecation(b: JsonObject, r: JsonObject, name: string, where: string): void {
    const wasDeprecated = b.deprecated === true;
    const isDeprecated = r.deprecated === true;
    const revSunset = sunsetOf(r);
    if (!wasDeprecated && isDeprecated) {
      if (revSunset === undefined) this.emit("endpoint-deprecated", "endpoint deprecated", name, where);
      else this.emit("endpoint-deprecated-with-sunset", `endpoint deprecated, sunset date ${revSunset}`, name, where);
    } else if (wasDeprecated && !isDeprecated) {
      this.emit("endpoint-reactivated", "endpoint reactivated (no longer deprecated)", name, where);
    } else if (wasDeprecated && isDeprecated) {
      const baseSunset = sunsetOf(b);
      if (baseSunset !== undefined && revSunset === undefined) {
        this.emit("sunset-deleted", `the sunset date ${baseSunset} was removed from a deprecated endpoint`, name, where);
      } else if (baseSunset !== undefined && revSunset !== undefined) {
        const from = parseSunset(baseSunset);
        const to = parseSunset(revSunset);
        if (from !== undefined && to !== undefined && to < from) {
          this.emit("api-sunset-date-changed-too-small", `the sunset date moved earlier, from ${from} to ${to}`, name, where);
        }
      }
    }
  }

  private diffOperationId(b: JsonObject, r: JsonObject, name: string, where: string): void {
    const from = typeof b.operationId === "string" ? b.operationId : undefined;
    const to = typeof r.operationId === "string" ? r.operationId : undefined;
    if (from === to) return;
    if (from !== undefined) this.emit("api-operation-id-removed", `operationId ${JSON.stringify(from)} removed${to === undefined ? "" : `, now ${JSON.stringify(to)}`}`, name, where);
    if (to !== undefined && from === undefined) this.emit("api-operation-id-added", `operationId ${JSON.stringify(to)} added`, name, where);
  }

  private diffTags(b: JsonObject, r: JsonObject, name: string, where: string): void {
    const from = new Set(Array.isArray(b.tags) ? b.tags.filter((t): t is string => typeof t === "string") : []);
    const to = new Set(Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === "string") : []);
    for (const tag of from) if (!to.has(tag)) this.emit("api-tag-removed", `tag ${JSON.stringify(tag)} removed`, name, where);
    for (const tag of to) if (!from.has(tag)) this.emit("api-tag-added", `tag ${JSON.stringify(tag)} added`, name, where);
  }

  // --- security ---------------------------------------------------------------------------------

  private diffGlobalSecurity(): void {
    this.diffSecurity(this.base.root.security, this.rev.root.security, undefined, "/security", "api-global");
  }

  /** Security requirements compared as sets of alternatives, each a set of scheme names with scopes. */
  private diffSecurity(b: unknown, r: unknown, name: string | undefined, where: string, prefix: "api" | "api-global"): void {
    if (prefix === "api" && b === undefined && r === undefined) return;
    const from = securityRequirements(b);
    const to = securityRequirements(r);
    for (const [key, schemes] of from) {
      const other = to.get(key);
      if (other === undefined) {
        this.emit(`${prefix}-security-removed`, `security requirement ${key || "{} (anonymous)"} removed`, name, where);
        continue;
      }
      for (const [scheme, scopes] of schemes) {
        const otherScopes = other.get(scheme) ?? new Set<string>();
        for (const scope of scopes) if (!otherScopes.has(scope)) this.emit(`${prefix}-security-scope-removed`, `scope ${JSON.stringify(scope)} of security scheme ${JSON.stringify(scheme)} removed`, name, where);
        for (const scope of otherScopes) if (!scopes.has(scope)) this.emit(`${prefix}-security-scope-added`, `scope ${JSON.stringify(scope)} of security scheme ${JSON.stringify(scheme)} added`, name, where);
      }
    }
    for (const key of to.keys()) {
      if (!from.has(key)) this.emit(`${prefix}-security-added`, `security requirement ${key || "{} (anonymous)"} added`, name, where);
    }
  }

  // --- parameters -------------------------------------------------------------------------------

  private parameters(doc: OpenApiDocument, op: Operation): Map<string, Location> {
    const result = new Map<string, Location>();
    for (const holder of [op.pathItem, op.location]) {
      const list = child(holder, "parameters");
      if (!Array.isArray(list.value)) continue;
      list.value.forEach((_, index) => {
        const param = deref(doc, child(list, index));
        if (!isObject(param.value) || typeof param.value.name !== "string" || typeof param.value.in !== "string") return;
        const where = param.value.in;
        const key = `${where}:${where === "header" ? param.value.name.toLowerCase() : param.value.name}`;
        result.set(key, param); // operation parameters override path-item ones
      });
    }
    return result;
  }

  private diffParameters(baseOp: Operation, revOp: Operation, name: string): void {
    const from = this.parameters(this.base, baseOp);
    const to = this.parameters(this.rev, revOp);
    // path parameters match by position, not name ({id} renamed to {userId} is the same parameter)
    const pathKey = (op: Operation, key: string): string => {
      if (!key.startsWith("path:")) return key;
      const names = [...op.path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
      const index = names.indexOf(key.slice(5));
      return index === -1 ? key : `path:#${index}`;
    };
    const fromByKey = new Map([...from].map(([key, loc]) => [pathKey(baseOp, key), loc]));
    const toByKey = new Map([...to].map(([key, loc]) => [pathKey(revOp, key), loc]));
    for (const [key, b] of fromByKey) {
      const bp = b.value as JsonObject;
      const r = toByKey.get(key);
      const subject = `the ${String(bp.in)} request parameter ${JSON.stringify(bp.name)}`;
      if (r === undefined) {
        const where = this.pointerOf(b, this.base);
        if (bp.deprecated === true) this.emit("request-parameter-removed-with-deprecation", `deprecated ${subject} removed`, name, where);
        else this.emit("request-parameter-removed", `${subject} removed`, name, where);
        continue;
      }
      this.diffParameter(b, r, subject, name);
    }
    for (const [key, r] of toByKey) {
      if (fromByKey.has(key)) continue;
      const rp = r.value as JsonObject;
      const where = this.pointerOf(r, this.rev);
      const subject = `the ${String(rp.in)} request parameter ${JSON.stringify(rp.name)}`;
      if (rp.in === "path") this.emit("new-request-path-parameter", `path parameter ${JSON.stringify(rp.name)} added`, name, where);
      else if (rp.required === true) this.emit("new-required-request-parameter", `required ${subject} added`, name, where);
      else this.emit("new-optional-request-parameter", `optional ${subject} added`, name, where);
    }
  }

  private diffParameter(b: Location, r: Location, subject: string, name: string): void {
    if (this.baseFp.of(b) === this.revFp.of(r)) return;
    const bp = b.value as JsonObject;
    const rp = r.value as JsonObject;
    const where = this.pointerOf(r, this.rev);
    if (bp.required !== true && rp.required === true) this.emit("request-parameter-became-required", `${subject} became required`, name, where);
    if (bp.required === true && rp.required !== true) this.emit("request-parameter-became-optional", `${subject} became optional`, name, where);
    if (bp.deprecated !== true && rp.deprecated === true) this.emit("request-parameter-deprecated", `${subject} deprecated`, name, where);
    if (bp.deprecated === true && rp.deprecated !== true) this.emit("request-parameter-reactivated", `${subject} reactivated (no longer deprecated)`, name, where);
    const bs = parameterSchema(b);
    const rs = parameterSchema(r);
    if (bs !== undefined && rs !== undefined) {
      this.diffSchema(bs, rs, { direction: "request", area: "parameter", subject, strong: false, operation: name });
    }
  }

  // --- request body -----------------------------------------------------------------------------

  private diffRequestBody(baseOp: Operation, revOp: Operation, name: string): void {
    const b = deref(this.base, child(baseOp.location, "requestBody"));
    const r = deref(this.rev, child(revOp.location, "requestBody"));
    if (!isObject(b.value) && !isObject(r.value)) return;
    if (!isObject(b.value)) {
      const where = this.pointerOf(r, this.rev);
      if ((r.value as JsonObject).required === true) this.emit("request-body-added-required", "required request body added", name, where);
      else this.emit("request-body-added-optional", "optional request body added", name, where);
      return;
    }
    if (!isObject(r.value)) {
      this.emit("request-body-removed", "request body removed", name, this.pointerOf(b, this.base));
      return;
    }
    if (this.baseFp.of(b) === this.revFp.of(r)) return;
    const where = this.pointerOf(r, this.rev);
    if (b.value.required !== true && r.value.required === true) this.emit("request-body-became-required", "request body became required", name, where);
    if (b.value.required === true && r.value.required !== true) this.emit("request-body-became-optional", "request body became optional", name, where);
    this.diffContent(child(b, "content"), child(r, "content"), "request", name);
  }

  private diffContent(b: Location, r: Location, direction: Direction, name: string, status?: string): void {
    const from = isObject(b.value) ? b.value : {};
    const to = isObject(r.value) ? r.value : {};
    const owner = direction === "request" ? "request body" : `response ${status}`;
    for (const mediaType of Object.keys(from)) {
      if (Object.hasOwn(to, mediaType)) continue;
      this.emit(`${direction === "request" ? "request-body" : "response"}-media-type-removed`, `media type ${mediaType} removed from the ${owner}`, name, this.pointerOf(child(b, mediaType), this.base));
    }
    for (const mediaType of Object.keys(to)) {
      const revMedia = child(r, mediaType);
      if (!Object.hasOwn(from, mediaType)) {
        this.emit(`${direction === "request" ? "request-body" : "response"}-media-type-added`, `media type ${mediaType} added to the ${owner}`, name, this.pointerOf(revMedia, this.rev));
        continue;
      }
      const bs = child(child(b, mediaType), "schema");
      const rs = child(revMedia, "schema");
      if (bs.value === undefined || rs.value === undefined) continue;
      const strong = mediaType === "application/json" || /\+json(;|$)/.test(mediaType) || mediaType.startsWith("application/json;");
      const subject = direction === "request" ? "the request body" : `the response ${status} body`;
      this.diffSchema(bs, rs, { direction, area: "body", subject, strong, operation: name, ...(status === undefined ? {} : { status }) });
    }
  }

  // --- responses --------------------------------------------------------------------------------

  private diffResponses(baseOp: Operation, revOp: Operation, name: string): void {
    const b = child(baseOp.location, "responses");
    const r = child(revOp.location, "responses");
    const from = isObject(b.value) ? b.value : {};
    const to = isObject(r.value) ? r.value : {};
    const success = (status: string): boolean => /^2(\d\d|XX)$/i.test(status);
    for (const status of Object.keys(from)) {
      if (Object.hasOwn(to, status)) {
        const br = deref(this.base, child(b, status));
        const rr = deref(this.rev, child(r, status));
        if (this.baseFp.of(br) !== this.revFp.of(rr)) {
          this.diffHeaders(br, rr, name, status);
          this.diffContent(child(br, "content"), child(rr, "content"), "response", name, status);
        }
        continue;
      }
      const where = this.pointerOf(child(b, status), this.base);
      if (success(status)) this.emit("response-success-status-removed", `success response status ${status} removed`, name, where);
      else this.emit("response-non-success-status-removed", `response status ${status} removed`, name, where);
    }
    for (const status of Object.keys(to)) {
      if (Object.hasOwn(from, status)) continue;
      const where = this.pointerOf(child(r, status), this.rev);
      if (success(status)) this.emit("response-success-status-added", `success response status ${status} added`, name, where);
      else this.emit("response-non-success-status-added", `response status ${status} added`, name, where);
    }
  }

  /** Response headers, by case-insensitive name: a client may read them. */
  private diffHeaders(b: Location, r: Location, name: string, status: string): void {
    const headers = (doc: OpenApiDocument, response: Location): Map<string, Location> => {
      const result = new Map<string, Location>();
      const list = child(response, "headers");
      if (!isObject(list.value)) return result;
      for (const header of Object.keys(list.value)) {
        if (header.toLowerCase() === "content-type") continue; // described by the media types
        result.set(header.toLowerCase(), deref(doc, child(list, header)));
      }
      return result;
    };
    const from = headers(this.base, b);
    const to = headers(this.rev, r);
    for (const [header, bh] of from) {
      const rh = to.get(header);
      const bv = isObject(bh.value) ? bh.value : {};
      if (rh === undefined) {
        const where = this.pointerOf(bh, this.base);
        if (bv.required === true) this.emit("required-response-header-removed", `required response header ${header} (response ${status}) removed`, name, where);
        else this.emit("optional-response-header-removed", `optional response header ${header} (response ${status}) removed`, name, where);
        continue;
      }
      if (this.baseFp.of(bh) === this.revFp.of(rh)) continue;
      const rv = isObject(rh.value) ? rh.value : {};
      const subject = `the response header ${header} (response ${status})`;
      if (bv.required === true && rv.required !== true) this.emit("response-header-became-optional", `${subject} became optional`, name, this.pointerOf(rh, this.rev));
      const bs = parameterSchema(bh);
      const rs = parameterSchema(rh);
      if (bs !== undefined && rs !== undefined) this.diffSchema(bs, rs, { direction: "response", area: "header", subject, strong: false, operation: name, status });
    }
    for (const [header, rh] of to) {
      if (!from.has(header)) this.emit("response-header-added", `response header ${header} (response ${status}) added`, name, this.pointerOf(rh, this.rev));
    }
  }

  // --- schemas ----------------------------------------------------------------------------------

  /** Diffs the schemas at the top of a body or parameter and reports what changed in this operation. */
  private diffSchema(bLoc: Location, rLoc: Location, ctx: SchemaContext): void {
    const node = this.schemaNode(bLoc, rLoc, { direction: ctx.direction, area: ctx.area, strong: ctx.strong, nested: false }, new Set(), 0);
    if (node !== null) this.replay(node, ctx, []);
  }

  /** Reports a finding tree under the operation: each finding once (a shared schema reached twice is reported at its first path). */
  private replay(node: FindingNode, ctx: SchemaContext, path: readonly string[]): void {
    if (this.diffedInOperation.has(node)) return;
    this.diffedInOperation.add(node);
    for (const finding of node.findings) {
      const full = finding.rel === undefined ? path : [...path, finding.rel];
      this.emit(finding.id, finding.template.replace("{s}", subjectOf(ctx, full)), ctx.operation, finding.at);
    }
    for (const [name, child] of node.children) this.replay(child, ctx, name === undefined ? path : [...path, name]);
  }

  /**
   * What changed between two schemas, as a tree of findings relative to them. Computed once per
   * schema pair and position, however many operations and property paths reach the pair; a pair
   * already being diffed further up (a recursive schema) is not entered again.
   */
  private schemaNode(bLoc: Location, rLoc: Location, pos: SchemaPosition, stack: ReadonlySet<string>, depth: number): FindingNode | null {
    this.tick();
    if (depth > this.rev.limits.maxDepth) throw new OpenApiError("too_deep", `schemas nest deeper than ${this.rev.limits.maxDepth} levels`);
    const b = deref(this.base, bLoc);
    const r = deref(this.rev, rLoc);
    if (this.baseFp.of(b) === this.revFp.of(r)) return null;
    const pair = `${b.doc}#${b.pointer}|${r.doc}#${r.pointer}`;
    if (stack.has(pair)) return null;
    const key = `${pos.direction}|${pos.area}|${pos.strong ? 1 : 0}|${pos.nested ? 1 : 0}|${pair}`;
    const known = this.nodes.get(key);
    if (known !== undefined) return known;
    const node: FindingNode = { findings: [], children: [] };
    this.computeNode(b, r, pos, new Set(stack).add(pair), depth, node);
    const result = node.findings.length === 0 && node.children.length === 0 ? null : node;
    this.nodes.set(key, result);
    return result;
  }

  private computeNode(b: Location, r: Location, pos: SchemaPosition, stack: ReadonlySet<string>, depth: number, node: FindingNode): void {
    const bs = this.view(this.base, b);
    const rs = this.view(this.rev, r);
    this.tick(membersOf(bs) + membersOf(rs));
    const nested = pos.nested;
    const prefix =
      pos.area === "parameter" ? (nested ? "request-parameter-property" : "request-parameter") : pos.area === "header" ? (nested ? "response-header-property" : "response-header") : `${pos.direction}-${nested ? "property" : "body"}`;
    const where = this.pointerOf(r, this.rev);
    const add = (id: string, template: string, at: string, rel?: string): void => {
      if (isRuleId(id)) node.findings.push({ id, template, at, ...(rel === undefined ? {} : { rel }) });
    };
    const emit = (suffix: string, message: string): void => add(`${prefix}-${suffix}`, `{s}: ${message}`, where);
    const request = pos.direction === "request";
    const into = (name: string | undefined, bChild: Location, rChild: Location): void => {
      const child = this.schemaNode(bChild, rChild, { ...pos, nested: true }, stack, depth + 1);
      if (child !== null) node.children.push([name, child]);
    };

    this.diffTypes(bs, rs, request, pos.strong, isRuleId(`${prefix}-type-compatible`), emit);

    if (!bs.nullable && rs.nullable) emit("became-nullable", "became nullable");
    if (bs.nullable && !rs.nullable) emit("became-not-nullable", "became not nullable");

    // enum
    if (bs.enum === undefined && rs.enum !== undefined) {
      if (request) emit("became-enum", `became an enum (${rs.enum.size} values)`);
    } else if (bs.enum !== undefined && rs.enum !== undefined) {
      for (const [key, value] of bs.enum) {
        if (rs.enum.has(key)) continue;
        if (!request && !nested) add("response-mediatype-enum-value-removed", `{s}: enum value ${key} removed`, where);
        else emit("enum-value-removed", `enum value ${formatValue(value)} removed`);
      }
      for (const [key, value] of rs.enum) if (!bs.enum.has(key)) emit("enum-value-added", `enum value ${formatValue(value)} added`);
    }

    // const
    if (!bs.hasConst && rs.hasConst) emit("const-added", `const ${formatValue(rs.const)} added`);
    else if (bs.hasConst && !rs.hasConst) emit("const-removed", `const ${formatValue(bs.const)} removed`);
    else if (bs.hasConst && rs.hasConst && canonicalJson(bs.const) !== canonicalJson(rs.const)) emit("const-changed", `const changed from ${formatValue(bs.const)} to ${formatValue(rs.const)}`);

    // default: what a server assumes when a client leaves the value out (a parameter's default
    // changes what the request means: breaking, as oasdiff rates it; elsewhere informational)
    const hadDefault = Object.hasOwn(bs.raw, "default");
    const hasDefault = Object.hasOwn(rs.raw, "default");
    if (!hadDefault && hasDefault) emit("default-value-added", `default value ${formatValue(rs.raw.default)} added`);
    else if (hadDefault && !hasDefault) emit("default-value-removed", `default value ${formatValue(bs.raw.default)} removed`);
    else if (hadDefault && hasDefault && canonicalJson(bs.raw.default) !== canonicalJson(rs.raw.default)) {
      emit("default-value-changed", `default value changed from ${formatValue(bs.raw.default)} to ${formatValue(rs.raw.default)}`);
    }

    // if / then / else (3.1): adding a condition restricts what is valid
    for (const keyword of ["if", "then", "else"] as const) {
      const had = bs.raw[keyword] !== undefined;
      const has = rs.raw[keyword] !== undefined;
      if (!had && has) emit(`${keyword}-added`, `"${keyword}" subschema added`);
      else if (had && !has) emit(`${keyword}-removed`, `"${keyword}" subschema removed`);
      else if (had && has && this.baseFp.of(child(b, keyword)) !== this.revFp.of(child(r, keyword))) {
        emit(`${keyword}-removed`, `"${keyword}" subschema changed`);
        emit(`${keyword}-added`, `"${keyword}" subschema changed`);
      }
    }

    this.diffBounds(bs, rs, request, emit);
    // an empty pattern constrains nothing (and is what oasdiff reads as no pattern)
    const fromPattern = typeof bs.raw.pattern === "string" && bs.raw.pattern !== "" ? bs.raw.pattern : undefined;
    const toPattern = typeof rs.raw.pattern === "string" && rs.raw.pattern !== "" ? rs.raw.pattern : undefined;
    if (fromPattern === undefined && toPattern !== undefined) emit("pattern-added", `pattern ${JSON.stringify(toPattern)} added`);
    else if (fromPattern !== undefined && toPattern === undefined) emit("pattern-removed", `pattern ${JSON.stringify(fromPattern)} removed`);
    else if (fromPattern !== undefined && toPattern !== undefined && fromPattern !== toPattern) {
      // a pattern that matches anything accepts every value the old one did
      const matchesAll = /^\^?\.\*\$?$/.test(toPattern);
      emit(request && matchesAll ? "pattern-generalized" : "pattern-changed", `pattern changed from ${JSON.stringify(fromPattern)} to ${JSON.stringify(toPattern)}`);
    }
    // oasdiff's legacy fallback for array parameters: maxItems written on the items schema
    if (pos.area === "parameter" && !nested && bs.items !== undefined && rs.items !== undefined && numberOf(bs.raw.maxItems) === undefined && numberOf(rs.raw.maxItems) === undefined) {
      const from = numberOf((deref(this.base, bs.items).value as JsonObject | undefined)?.maxItems);
      const to = numberOf((deref(this.rev, rs.items).value as JsonObject | undefined)?.maxItems);
      if (from !== undefined && to !== undefined && from !== to) emit(to < from ? "max-items-decreased" : "max-items-increased", `maxItems (on the items) changed from ${from} to ${to}`);
    }
    this.diffAlternatives("oneOf", b, r, pos, stack, depth, node, emit);
    this.diffAlternatives("anyOf", b, r, pos, stack, depth, node, emit);

    if (nested) {
      const wasDeprecated = bs.raw.deprecated === true;
      const isDeprecated = rs.raw.deprecated === true;
      if (!wasDeprecated && isDeprecated) emit("deprecated", "deprecated");
      if (wasDeprecated && !isDeprecated) emit("reactivated", "reactivated (no longer deprecated)");
      const from = stabilityOf(bs.raw);
      const to = stabilityOf(rs.raw);
      if (from !== "invalid" && to !== "invalid" && from !== to) {
        const fromIndex = STABILITY.indexOf(from ?? "stable");
        const toIndex = STABILITY.indexOf(to ?? "stable");
        if (fromIndex >= STABILITY.indexOf("beta")) emit(toIndex < fromIndex ? "stability-decreased" : "stability-increased", `stability level changed from ${STABILITY[fromIndex]} to ${STABILITY[toIndex]}`);
      }
    }

    this.diffProperties(bs, rs, pos, add, into);
    if (bs.items !== undefined && rs.items !== undefined) into("items", bs.items, rs.items);
  }

  private diffProperties(
    bs: SchemaView,
    rs: SchemaView,
    pos: SchemaPosition,
    add: (id: string, template: string, at: string, rel?: string) => void,
    into: (name: string | undefined, b: Location, r: Location) => void,
  ): void {
    const request = pos.direction === "request";
    const parameter = pos.area === "parameter" || pos.area === "header";
    for (const [prop, bLoc] of bs.properties) {
      const rLoc = rs.properties.get(prop);
      const bRaw = (deref(this.base, bLoc).value ?? {}) as JsonObject;
      if (rLoc === undefined) {
        if (parameter) continue;
        const at = this.pointerOf(bLoc, this.base);
        if (request) {
          if (bRaw.readOnly === true) continue;
          add("request-property-removed", "{s} removed", at, prop);
        } else {
          if (bRaw.writeOnly === true) continue;
          if (bs.required.has(prop)) add("response-required-property-removed", "{s} removed (it was required)", at, prop);
          else add("response-optional-property-removed", "{s} removed (it was optional)", at, prop);
        }
        continue;
      }
      const rRaw = (deref(this.rev, rLoc).value ?? {}) as JsonObject;
      if (!parameter) {
        const at = this.pointerOf(rLoc, this.rev);
        const was = bs.required.has(prop);
        const is = rs.required.has(prop);
        if (request && !was && is && rRaw.readOnly !== true) add("request-property-became-required", "{s} became required", at, prop);
        if (request && was && !is && rRaw.readOnly !== true) add("request-property-became-optional", "{s} became optional", at, prop);
        if (!request && was && !is && rRaw.writeOnly !== true) add("response-property-became-optional", "{s} became optional", at, prop);
        if (!request && !was && is && rRaw.writeOnly !== true) add("response-property-became-required", "{s} became required", at, prop);
      }
      // a property only the other side reads or writes is not part of this direction's contract
      if ((request && rRaw.readOnly === true) || (!request && rRaw.writeOnly === true)) continue;
      into(prop, bLoc, rLoc);
    }
    if (parameter) return;
    for (const [prop, rLoc] of rs.properties) {
      if (bs.properties.has(prop)) continue;
      const rRaw = (deref(this.rev, rLoc).value ?? {}) as JsonObject;
      const at = this.pointerOf(rLoc, this.rev);
      const required = rs.required.has(prop);
      if (request) {
        if (rRaw.readOnly === true) continue;
        if (required) add("new-required-request-property", "{s} added, required", at, prop);
        else add("new-optional-request-property", "{s} added, optional", at, prop);
      } else {
        if (rRaw.writeOnly === true) continue;
        if (required) add("response-required-property-added", "{s} added, required", at, prop);
        else add("response-optional-property-added", "{s} added, optional", at, prop);
      }
    }
  }

  /** Type and format, as oasdiff's type/format rules judge them (requests widen, responses narrow). */
  private diffTypes(bs: SchemaView, rs: SchemaView, request: boolean, strong: boolean, compatibleRule: boolean, emit: (suffix: string, message: string) => void): void {
    const from = bs.types;
    const to = rs.types;
    const typeChanged = !sameSet(from, to);
    const formatChanged = bs.format !== rs.format;
    if (!typeChanged && !formatChanged) return;
    const describe = `${typeChanged && formatChanged ? "type/format" : typeChanged ? "type" : "format"} changed from ${typeFormat(bs, typeChanged, formatChanged)} to ${typeFormat(rs, typeChanged, formatChanged)}`;
    if (typeChanged && (from.length > 1 || to.length > 1)) {
      // lists of types (3.1): widened or narrowed
      if (from.length > 0 && to.length > 0 && isSubset(from, to)) emit("list-of-types-widened", describe);
      else if (from.length > 0 && to.length > 0 && isSubset(to, from)) emit("list-of-types-narrowed", describe);
      else emit("type-changed", describe);
      return;
    }
    // a swap between two concrete types that is safe only because the media type is not strongly
    // typed (text, XML, a header: 1 and "1" read the same) is "compatible", as oasdiff says
    // (oasdiff has no such rule for parameters: there it is a generalization)
    const concreteSwap = typeChanged && from.length > 0 && to.length > 0 && compatibleRule;
    if (request) {
      // the new type must accept every value the old one did
      if (typeChanged && to.length === 0) emit("type-generalized", describe);
      else if (typeFormatBreaking(typeChanged ? { added: to, deleted: from } : undefined, formatChanged ? { to: rs.format, from: bs.format } : undefined, strong, to)) emit("type-changed", describe);
      else if (concreteSwap && !isSubset(from, to)) emit("type-compatible", `${describe} (compatible only because the media type is not strongly typed)`);
      else emit("type-generalized", describe);
    } else {
      // every value the new type returns must have been possible before: the same check, reversed
      if (typeChanged && from.length === 0) emit("type-specialized", describe);
      else if (typeFormatBreaking(typeChanged ? { added: from, deleted: to } : undefined, formatChanged ? { to: bs.format, from: rs.format } : undefined, strong, from)) {
        emit(typeChanged && isSubset(from, to) && from.length > 0 ? "type-generalized" : "type-changed", describe);
      } else if (concreteSwap && !isSubset(to, from)) emit("type-compatible", `${describe} (compatible only because the media type is not strongly typed)`);
      else emit("type-specialized", describe);
    }
  }

  /** minimum/maximum, minLength/maxLength, minItems/maxItems with oasdiff's rule names. */
  private diffBounds(bs: SchemaView, rs: SchemaView, request: boolean, emit: (suffix: string, message: string) => void): void {
    const pairs = [
      ["minimum", "maximum", "min", "max"],
      ["minLength", "maxLength", "min-length", "max-length"],
      ["minItems", "maxItems", "min-items", "max-items"],
    ] as const;
    for (const [minKey, maxKey, min, max] of pairs) {
      const b = { min: numberOf(bs.raw[minKey]), max: numberOf(bs.raw[maxKey]) };
      const r = { min: numberOf(rs.raw[minKey]), max: numberOf(rs.raw[maxKey]) };
      const text = (key: string, from: number | undefined, to: number | undefined): string =>
        from === undefined ? `${key} set to ${to}` : to === undefined ? `${key} ${from} removed` : `${key} changed from ${from} to ${to}`;
      if (request) {
        if (b.min === undefined && r.min !== undefined) emit(`${min}-set`, text(minKey, b.min, r.min));
        else if (b.min !== undefined && r.min !== undefined && r.min > b.min) emit(`${min}-increased`, text(minKey, b.min, r.min));
        else if (b.min !== undefined && r.min !== undefined && r.min < b.min) emit(`${min}-decreased`, text(minKey, b.min, r.min));
        if (b.max === undefined && r.max !== undefined) emit(`${max}-set`, text(maxKey, b.max, r.max));
        else if (b.max !== undefined && r.max !== undefined && r.max < b.max) emit(`${max}-decreased`, text(maxKey, b.max, r.max));
        else if (b.max !== undefined && r.max !== undefined && r.max > b.max) emit(`${max}-increased`, text(maxKey, b.max, r.max));
      } else {
        if (b.min !== undefined && r.min === undefined) emit(`${min}-unset`, text(minKey, b.min, r.min));
        else if (b.min !== undefined && r.min !== undefined && r.min < b.min) emit(`${min}-decreased`, text(minKey, b.min, r.min));
        if (b.max !== undefined && r.max === undefined) emit(`${max}-unset`, text(maxKey, b.max, r.max));
        else if (b.max !== undefined && r.max !== undefined && r.max > b.max) emit(`${max}-increased`, text(maxKey, b.max, r.max));
      }
    }
  }

  /** oneOf/anyOf members matched by meaning (fingerprint), then by `$ref` name or title; the rest added or removed. */
  private diffAlternatives(
    keyword: "oneOf" | "anyOf",
    b: Location,
    r: Location,
    pos: SchemaPosition,
    stack: ReadonlySet<string>,
    depth: number,
    node: FindingNode,
    emit: (suffix: string, message: string) => void,
  ): void {
    // a matched member is diffed at the same property path (its findings read as this schema's)
    const into = (bMember: Location, rMember: Location): void => {
      const child = this.schemaNode(bMember, rMember, pos, stack, depth + 1);
      if (child !== null) node.children.push([undefined, child]);
    };
    const from = child(b, keyword);
    const to = child(r, keyword);
    const fromList = Array.isArray(from.value) ? from.value.map((_, i) => child(from, i)) : [];
    const toList = Array.isArray(to.value) ? to.value.map((_, i) => child(to, i)) : [];
    if (fromList.length === 0 && toList.length === 0) return;
    const suffix = keyword === "oneOf" ? "one-of" : "any-of";
    // a member that is only { type: "null" } is nullability, judged above
    const isNull = (doc: OpenApiDocument, loc: Location): boolean => {
      const value = deref(doc, loc).value;
      return isObject(value) && value.type === "null" && Object.keys(value).every((k) => k === "type" || k === "description");
    };
    const left = fromList.filter((loc) => !isNull(this.base, loc));
    const right = toList.filter((loc) => !isNull(this.rev, loc));
    const remaining = new Set(right.keys());
    const unmatched: Location[] = [];
    for (const loc of left) {
      const fp = this.baseFp.of(loc);
      const index = [...remaining].find((i) => this.revFp.of(right[i]!) === fp);
      if (index === undefined) unmatched.push(loc);
      else remaining.delete(index);
    }
    const removed: Location[] = [];
    for (const loc of unmatched) {
      const name = memberName(this.base, loc);
      const index = name === undefined ? undefined : [...remaining].find((i) => memberName(this.rev, right[i]!) === name);
      if (index === undefined) {
        removed.push(loc);
        continue;
      }
      remaining.delete(index);
      into(loc, right[index]!);
    }
    // members that are single objects without a name: pair them in order when counts match
    const added = [...remaining].map((i) => right[i]!);
    if (removed.length > 0 && removed.length === added.length) {
      removed.forEach((loc, i) => into(loc, added[i]!));
      return;
    }
    for (const loc of removed) emit(`${suffix}-removed`, `${keyword} member ${memberName(this.base, loc) ?? `#${loc.pointer.split("/").pop()}`} removed`);
    for (const loc of added) emit(`${suffix}-added`, `${keyword} member ${memberName(this.rev, loc) ?? `#${loc.pointer.split("/").pop()}`} added`);
  }

  /** The parts of a schema the rules read, with `allOf` members merged in. */
  // (charged by the caller, once the members are known: see tick)
  private view(doc: OpenApiDocument, location: Location): SchemaView {
    const raw = isObject(location.value) ? location.value : {};
    const view: SchemaView = {
      raw,
      types: [],
      nullable: false,
      format: undefined,
      enum: undefined,
      hasConst: Object.hasOwn(raw, "const"),
      const: raw.const,
      properties: new Map(),
      required: new Set(),
      items: undefined,
    };
    const visit = (loc: Location, depth: number): void => {
      const target = deref(doc, loc);
      const value = target.value;
      if (!isObject(value) || depth > 32) return;
      if (typeof value.type === "string") addTypes(view, [value.type]);
      else if (Array.isArray(value.type)) addTypes(view, value.type.filter((t): t is string => typeof t === "string"));
      if (value.nullable === true) view.nullable = true;
      if (typeof value.format === "string" && view.format === undefined) view.format = value.format;
      if (Array.isArray(value.enum) && view.enum === undefined) {
        view.enum = new Map();
        for (const item of value.enum) {
          if (item === null) view.nullable = view.nullable || true;
          view.enum.set(canonicalJson(item), item);
        }
      }
      if (Array.isArray(value.required)) for (const name of value.required) if (typeof name === "string") view.required.add(name);
      const properties = child(target, "properties");
      if (isObject(properties.value)) {
        for (const name of Object.keys(properties.value)) view.properties.set(name, child(properties, name));
      }
      if (value.items !== undefined && view.items === undefined && !Array.isArray(value.items)) view.items = child(target, "items");
      const allOf = child(target, "allOf");
      if (Array.isArray(allOf.value)) allOf.value.forEach((_, i) => visit(child(allOf, i), depth + 1));
    };
    visit(location, 0);
    // oneOf/anyOf with a { type: "null" } member (3.1's way of writing a nullable reference)
    for (const keyword of ["oneOf", "anyOf"]) {
      const members = raw[keyword];
      if (!Array.isArray(members)) continue;
      for (const member of members) {
        const value = isObject(member) ? deref(doc, { doc: location.doc, pointer: "", value: member }).value : undefined;
        if (isObject(value) && value.type === "null") view.nullable = true;
      }
    }
    if (view.types.includes("null")) {
      view.nullable = true;
      view.types = view.types.filter((t) => t !== "null");
    }
    return view;
  }
}

interface SchemaContext {
  readonly direction: Direction;
  readonly area: "body" | "parameter" | "header";
  /** How the top of this schema is named in messages. */
  readonly subject: string;
  /** Whether the media type is strongly typed (JSON): "1" and 1 differ. */
  readonly strong: boolean;
  readonly operation: string;
  readonly status?: string;
}

/** What a schema's findings depend on besides the two schemas: the ids and the type rules. */
interface SchemaPosition {
  readonly direction: Direction;
  readonly area: "body" | "parameter" | "header";
  readonly strong: boolean;
  /** Below the top of the body or parameter (property ids instead of body ids). */
  readonly nested: boolean;
}

interface Finding {
  readonly id: RuleId;
  /** The message, with `{s}` where the subject (the property path, in this operation) goes. */
  readonly template: string;
  readonly at: string;
  /** A property name below the schema the finding belongs to (added, removed, required). */
  readonly rel?: string;
}

/** The findings of one schema pair, and those of the pairs below it (by property name, or
 * undefined for oneOf/anyOf members at the same path). */
interface FindingNode {
  readonly findings: Finding[];
  readonly children: Array<[string | undefined, FindingNode]>;
}

function subjectOf(ctx: SchemaContext, path: readonly string[]): string {
  if (path.length === 0) return ctx.subject;
  const name = JSON.stringify(path.join("/"));
  if (ctx.area === "parameter" || ctx.area === "header") return `${ctx.subject}, property ${name}`;
  if (ctx.direction === "request") return `the request property ${name}`;
  return `the response property ${name}${ctx.status === undefined ? "" : ` (response ${ctx.status})`}`;
}

interface SchemaView {
  readonly raw: JsonObject;
  types: string[];
  nullable: boolean;
  format: string | undefined;
  enum: Map<string, unknown> | undefined;
  readonly hasConst: boolean;
  readonly const: unknown;
  readonly properties: Map<string, Location>;
  readonly required: Set<string>;
  items: Location | undefined;
}

function addTypes(view: SchemaView, types: readonly string[]): void {
  if (view.types.length === 0) view.types = [...types];
  else view.types = view.types.filter((t) => types.includes(t) || (t === "number" && types.includes("integer"))); // allOf intersects
}

function label(op: Operation): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

function parameterSchema(param: Location): Location | undefined {
  const value = param.value;
  if (!isObject(value)) return undefined;
  if (value.schema !== undefined) return child(param, "schema");
  const content = child(param, "content");
  if (isObject(content.value)) {
    const first = Object.keys(content.value)[0];
    if (first !== undefined) return child(child(content, first), "schema");
  }
  return undefined;
}

function securityRequirements(value: unknown): Map<string, Map<string, Set<string>>> {
  const result = new Map<string, Map<string, Set<string>>>();
  if (!Array.isArray(value)) return result;
  for (const requirement of value) {
    if (!isObject(requirement)) continue;
    const schemes = new Map<string, Set<string>>();
    for (const [scheme, scopes] of Object.entries(requirement)) {
      schemes.set(scheme, new Set(Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : []));
    }
    result.set([...schemes.keys()].sort().join(" AND "), schemes);
  }
  return result;
}

function memberName(doc: OpenApiDocument, loc: Location): string | undefined {
  const value = loc.value;
  if (isObject(value) && typeof value.$ref === "string") return value.$ref.split("/").pop();
  const target = deref(doc, loc).value;
  return isObject(target) && typeof target.title === "string" ? target.title : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

// every type of `sub` is covered by one of `sup` (integer within number)
function isSubset(sub: readonly string[], sup: readonly string[]): boolean {
  return sub.every((t) => sup.some((s) => s === t || (t === "integer" && s === "number")));
}

function typeFormat(view: SchemaView, typeChanged: boolean, formatChanged: boolean): string {
  const type = view.types.length === 0 ? "any" : view.types.join(", ");
  if (typeChanged && !formatChanged) return type;
  if (!typeChanged) return view.format ?? "none";
  return view.format === undefined ? type : `${type}/${view.format}`;
}

function formatValue(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// oasdiff's typeOrFormatBreaking, toward `toType`: the type axis and the format axis are each
// breaking unless the new one contains the old (integer within number; anything within string
// when the media type is not strongly typed; int32 within int64, float within double, date within
// date-time; no format contains every format).
function typeFormatBreaking(
  typeDiff: { added: readonly string[]; deleted: readonly string[] } | undefined,
  formatDiff: { to: string | undefined; from: string | undefined } | undefined,
  strong: boolean,
  toType: readonly string[],
): boolean {
  let typeBreaking = false;
  if (typeDiff !== undefined) {
    const { added: to, deleted: from } = typeDiff;
    const contained =
      (to.length === 1 && from.length === 1 && (from[0] === to[0] || (from[0] === "integer" && to[0] === "number"))) ||
      (!strong && (to.length === 0 || (to.length === 1 && to[0] === "string")));
    typeBreaking = !contained;
  }
  let formatBreaking = false;
  if (formatDiff !== undefined) {
    const { to, from } = formatDiff;
    if (to !== undefined) {
      const single = toType.length === 1 ? toType[0] : undefined;
      const contained =
        (single === "number" && to === "double" && from === "float") ||
        (single === "integer" && ((to === "int64" && from === "int32") || (to === "bigint" && (from === "int32" || from === "int64")))) ||
        (single === "string" && to === "date-time" && (from === "date" || from === "time"));
      formatBreaking = !contained;
    }
  }
  return typeBreaking || formatBreaking;
}

/** The members a schema view read (charged to the diff's step budget). */
function membersOf(view: SchemaView): number {
  return view.properties.size + view.required.size + (view.enum?.size ?? 0);
}
