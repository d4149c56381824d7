import { useMutation, useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { useClient } from "../../api/context";
import { monitorKeys } from "../../api/keys";
import { ErrorState, Loading } from "../../ui/states";

/** A JSON Schema node as the server infers it (docs/contracts.md, "The inferred schema"). */
interface SchemaNode {
  type?: string | string[];
  format?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  "x-driftwatch-volatile"?: boolean;
  [key: string]: unknown;
}

const VOLATILE = "x-driftwatch-volatile";

/** "string (date-time)", "integer or null", "object": a node's types as read. */
export function typeLabel(node: SchemaNode): string {
  const types = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
  const base = types.length === 0 ? "any" : types.join(" or ");
  return node.format ? `${base} (${node.format})` : base;
}

/** Saves `text` as a file named `name` (the browser's download). */
function saveFile(text: string, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The JSON Schema inferred from an api monitor's newest responses, learned volatile members highlighted, and its download. */
export function InferredSchema({ monitorId }: { monitorId: string }): ReactNode {
  const client = useClient();
  const [view, setView] = useState<"tree" | "json">("tree");
  const schema = useQuery({ queryKey: [...monitorKeys.detail(monitorId), "schema"], queryFn: async () => await client.monitors.schema(monitorId), staleTime: 60_000 });
  const download = useMutation({
    mutationFn: async () => await client.monitors.schemaDocument(monitorId),
    onSuccess: (document) => saveFile(`${JSON.stringify(document, null, 2)}\n`, `${monitorId}.schema.json`, "application/schema+json"),
  });
  if (schema.isPending) return <Loading what="the inferred schema" />;
  if (schema.isError) return <ErrorState error={schema.error} retry={() => void schema.refetch()} />;
  // an answer missing a part (an older server) shows what it has rather than failing the monitor's page
  const s = { samples: schema.data.samples ?? 0, volatile: schema.data.volatile ?? [], truncated: schema.data.truncated === true };
  const root = (schema.data.schema ?? {}) as SchemaNode;
  return (
    <section className="card inferred-schema" aria-labelledby="schema-heading">
      <div className="schema-head">
        <p id="schema-heading">
          Inferred from {s.samples === 1 ? "1 response" : `${String(s.samples)} responses`}
          {s.volatile.length > 0 ? (
            <>
              {" "}
              · <span className="volatile-key">{s.volatile.length === 1 ? "1 volatile member" : `${String(s.volatile.length)} volatile members`}</span> (learned or ruled: their values change on their own)
            </>
          ) : null}
        </p>
        <div className="actions">
          <div className="segmented" role="group" aria-label="Schema view">
            <button type="button" aria-pressed={view === "tree"} onClick={() => setView("tree")}>
              Tree
            </button>
            <button type="button" aria-pressed={view === "json"} onClick={() => setView("json")}>
              JSON
            </button>
          </div>
          <button type="button" onClick={() => download.mutate()} disabled={download.isPending || s.samples === 0}>
            {download.isPending ? "Preparing…" : "Download JSON Schema"}
          </button>
        </div>
      </div>
      {download.error ? <ErrorState error={download.error} /> : null}
      {s.truncated ? <p className="state">The schema is large: members past the size limit are shown as “any”.</p> : null}
      {s.samples === 0 ? (
        <p className="muted">No JSON response recorded yet: the schema appears after the first check.</p>
      ) : view === "tree" ? (
        <ul className="schema-tree" aria-label="Inferred schema">
          <SchemaRow name="(response)" node={root} required depth={0} />
        </ul>
      ) : (
        <pre className="schema-json" role="region" tabIndex={0} aria-label="Inferred schema as JSON">
          <JsonWithVolatile value={root} />
        </pre>
      )}
    </section>
  );
}

function SchemaRow({ name, node, required, depth }: { name: string; node: SchemaNode; required: boolean; depth: number }): ReactNode {
  const volatile = node[VOLATILE] === true;
  const properties = Object.entries(node.properties ?? {});
  const req = new Set(node.required ?? []);
  const head = (
    <>
      <code className="schema-name">{name}</code> <span className="schema-type">{typeLabel(node)}</span>
      {required ? null : <span className="muted"> · optional</span>}
      {volatile ? (
        <span className="badge volatile" title="Learned or ruled volatile: its value changes on its own, and changes to it are not reported as changes">
          volatile
        </span>
      ) : null}
    </>
  );
  const children =
    properties.length > 0 || node.items !== undefined ? (
      <ul>
        {properties.map(([key, child]) => (
          <SchemaRow key={key} name={key} node={child} required={req.has(key)} depth={depth + 1} />
        ))}
        {node.items !== undefined ? <SchemaRow name="[items]" node={node.items} required depth={depth + 1} /> : null}
      </ul>
    ) : null;
  return (
    <li className={volatile ? "schema-node is-volatile" : "schema-node"}>
      {children ? (
        <details open={depth < 3}>
          <summary>{head}</summary>
          {children}
        </details>
      ) : (
        <span className="schema-leaf">{head}</span>
      )}
    </li>
  );
}

/** The schema as indented JSON, each object marked volatile highlighted (a <mark> around it). */
function JsonWithVolatile({ value, indent = "" }: { value: unknown; indent?: string }): ReactNode {
  if (value === null || typeof value !== "object") return <>{JSON.stringify(value)}</>;
  const inner = `${indent}  `;
  const entries: Array<[string | null, unknown]> = Array.isArray(value) ? value.map((v) => [null, v]) : Object.entries(value);
  if (entries.length === 0) return <>{Array.isArray(value) ? "[]" : "{}"}</>;
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  const body = (
    <>
      {open}
      {"\n"}
      {entries.map(([key, v], i) => (
        <span key={key ?? i}>
          {inner}
          {key === null ? null : `${JSON.stringify(key)}: `}
          <JsonWithVolatile value={v} indent={inner} />
          {i < entries.length - 1 ? "," : ""}
          {"\n"}
        </span>
      ))}
      {indent}
      {close}
    </>
  );
  return !Array.isArray(value) && (value as Record<string, unknown>)[VOLATILE] === true ? <mark className="volatile">{body}</mark> : body;
}
