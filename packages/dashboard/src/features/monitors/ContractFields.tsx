import type { ReactNode } from "react";
import { FieldError, fieldErrorsAt } from "../../ui/FieldErrors";
import { useMonitors } from "./api";
import { CONTRACT_METHODS, type ContractValues } from "./form";

/**
 * An `api` monitor's contract: the OpenAPI document (a URL or a stored `openapi` monitor), the
 * operation (operationId, or method and path) and the status. A 422's messages show at their field.
 */
export function ContractFields({ value, onChange, error }: { value: ContractValues; onChange: (next: ContractValues) => void; error: unknown }): ReactNode {
  const set = <K extends keyof ContractValues>(key: K, v: ContractValues[K]): void => onChange({ ...value, [key]: v });
  const at = (path: string): string[] => fieldErrorsAt(error, path);
  const documentErrors = at("contract.document");
  const operationErrors = at("contract.operation");
  const statusErrors = at("contract.status");
  const otherErrors = fieldErrorsAt(error, "contract").filter((m) => !documentErrors.includes(m) && !operationErrors.includes(m) && !statusErrors.includes(m));
  const invalid = (messages: readonly string[], id: string) => (messages.length > 0 ? { "aria-invalid": true as const, "aria-describedby": id } : {});
  return (
    <fieldset className="contract">
      <legend>API contract</legend>
      <label className="inline">
        <input type="checkbox" checked={value.on} onChange={(e) => set("on", e.target.checked)} /> Check each response against an OpenAPI document
      </label>
      <p className="hint">A response that does not match the documented schema is reported as a contract violation (a missing required property or a wrong type: high).</p>
      <FieldError id="f-contract-error" messages={otherErrors} />
      {value.on ? (
        <>
          <div role="radiogroup" aria-label="The OpenAPI document">
            <label className="inline">
              <input type="radio" name="contract-source" checked={value.source === "url"} onChange={() => set("source", "url")} /> Document at a URL
            </label>
            <label className="inline">
              <input type="radio" name="contract-source" checked={value.source === "monitor"} onChange={() => set("source", "monitor")} /> An OpenAPI monitor's document
            </label>
          </div>
          {value.source === "url" ? (
            <>
              <label htmlFor="f-contract-url">OpenAPI document URL</label>
              <input
                id="f-contract-url"
                type="url"
                required
                value={value.documentUrl}
                placeholder="https://api.example.com/openapi.yaml"
                onChange={(e) => set("documentUrl", e.target.value)}
                {...invalid(documentErrors, "f-contract-url-error")}
              />
            </>
          ) : (
            <>
              <label htmlFor="f-contract-monitor">OpenAPI monitor</label>
              <OpenApiMonitorSelect value={value.documentMonitorId} onChange={(id) => set("documentMonitorId", id)} describedBy={documentErrors.length > 0 ? "f-contract-url-error" : undefined} />
            </>
          )}
          <FieldError id="f-contract-url-error" messages={documentErrors} />
          <div role="radiogroup" aria-label="The operation">
            <label className="inline">
              <input type="radio" name="contract-by" checked={value.by === "operationId"} onChange={() => set("by", "operationId")} /> By operationId
            </label>
            <label className="inline">
              <input type="radio" name="contract-by" checked={value.by === "path"} onChange={() => set("by", "path")} /> By method and path
            </label>
          </div>
          {value.by === "operationId" ? (
            <>
              <label htmlFor="f-contract-opid">operationId</label>
              <input
                id="f-contract-opid"
                required
                value={value.operationId}
                placeholder="getPet"
                autoComplete="off"
                onChange={(e) => set("operationId", e.target.value)}
                {...invalid(operationErrors, "f-contract-op-error")}
              />
            </>
          ) : (
            <div className="grid2 contract-op">
              <div>
                <label htmlFor="f-contract-method">Operation method</label>
                <select id="f-contract-method" value={value.method} onChange={(e) => set("method", e.target.value as ContractValues["method"])}>
                  {CONTRACT_METHODS.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              </div>
              <div>
                <label htmlFor="f-contract-path">Operation path</label>
                <input
                  id="f-contract-path"
                  required
                  value={value.path}
                  placeholder="/pets/{id}"
                  autoComplete="off"
                  onChange={(e) => set("path", e.target.value)}
                  {...invalid(operationErrors, "f-contract-op-error")}
                />
              </div>
            </div>
          )}
          <FieldError id="f-contract-op-error" messages={operationErrors} />
          <label htmlFor="f-contract-status">Response status</label>
          <input
            id="f-contract-status"
            value={value.status}
            placeholder="the status answered"
            autoComplete="off"
            aria-describedby={statusErrors.length > 0 ? "f-contract-status-error" : "f-contract-status-hint"}
            aria-invalid={statusErrors.length > 0 ? true : undefined}
            onChange={(e) => set("status", e.target.value)}
          />
          <p className="hint" id="f-contract-status-hint">
            A code (200), a range (2XX) or default. Empty: the status the target answered, then its range, then default.
          </p>
          <FieldError id="f-contract-status-error" messages={statusErrors} />
        </>
      ) : null}
    </fieldset>
  );
}

function OpenApiMonitorSelect({ value, onChange, describedBy }: { value: string; onChange: (id: string) => void; describedBy: string | undefined }): ReactNode {
  const monitors = useMonitors();
  const documents = (monitors.data ?? []).filter((m) => m.type === "openapi");
  return (
    <>
      <select
        id="f-contract-monitor"
        required
        value={value}
        aria-describedby={describedBy}
        aria-invalid={describedBy !== undefined ? true : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">{monitors.isPending ? "Loading…" : documents.length === 0 ? "No OpenAPI monitors" : "Choose…"}</option>
        {value !== "" && !documents.some((m) => m.id === value) ? <option value={value}>{value}</option> : null}
        {documents.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </select>
      {monitors.isError ? <p className="hint">The monitors could not be listed.</p> : null}
    </>
  );
}
