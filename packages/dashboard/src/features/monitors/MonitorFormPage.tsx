import type { Monitor } from "@driftwatch/client";
import { useState, type FormEvent, type ReactNode } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { ErrorState, Loading } from "../../ui/states";
import { useMonitor, useSaveMonitor } from "./api";
import { useMutation } from "@tanstack/react-query";
import { useClient } from "../../api/context";
import { applyTracking } from "../conditions/api";
import { NO_PRESET, presetProblem, presetSettings, type PresetValues } from "../conditions/presets";
import { SelectorPicker } from "../visual/SelectorPicker";
import { StepsEditor } from "../visual/StepsEditor";
import type { BrowserRequest } from "../visual/api";
import { ContractFields } from "./ContractFields";
import { BLOCKABLE, initialValues, isCredentialHeader, METHODS, SCREENSHOT_MODES, toRequest, WAIT_STRATEGIES, type MonitorFormValues } from "./form";

export function MonitorFormPage(): ReactNode {
  const { monitorId } = useParams();
  if (monitorId === undefined) return <MonitorForm />;
  return <EditMonitor id={monitorId} />;
}

function EditMonitor({ id }: { id: string }): ReactNode {
  const monitor = useMonitor(id);
  if (monitor.isPending) return <Loading what="the monitor" />;
  if (monitor.isError) return <ErrorState error={monitor.error} retry={() => void monitor.refetch()} />;
  return <MonitorForm monitor={monitor.data} />;
}

const INTERVALS: Array<[number, string]> = [
  [10, "10 seconds"],
  [60, "1 minute"],
  [300, "5 minutes"],
  [900, "15 minutes"],
  [3600, "1 hour"],
  [21600, "6 hours"],
  [86400, "1 day"],
];

export function MonitorForm({ monitor }: { monitor?: Monitor }): ReactNode {
  const editing = monitor !== undefined;
  const [v, setV] = useState<MonitorFormValues>(() => initialValues(monitor));
  const save = useSaveMonitor(monitor?.id);
  const navigate = useNavigate();
  const set = <K extends keyof MonitorFormValues>(key: K, value: MonitorFormValues[K]): void => setV((old) => ({ ...old, [key]: value }));
  const intervals = INTERVALS.some(([s]) => s === v.intervalSeconds) ? INTERVALS : [...INTERVALS, [v.intervalSeconds, `${String(v.intervalSeconds)} seconds`] as [number, string]];

  const [needUrl, setNeedUrl] = useState(false);
  /** The target and browser options as typed, for the selector picker and the steps' dry run. */
  const browserRequest = (): BrowserRequest | null => {
    if (v.url.trim() === "") {
      setNeedUrl(true);
      return null;
    }
    setNeedUrl(false);
    const body = toRequest({ ...v, browser: true }, false);
    return { url: body.url, browserOptions: { ...(body.browserOptions ?? {}) } };
  };

  const client = useClient();
  const [preset, setPreset] = useState<PresetValues>(NO_PRESET);
  const [presetError, setPresetError] = useState<string | null>(null);
  const alerts = useMutation({ mutationFn: (id: string) => applyTracking(client, id, (existing) => presetSettings(preset, v.type, existing)) });

  function submit(event: FormEvent): void {
    event.preventDefault();
    const problem = presetProblem(preset, v.type);
    setPresetError(problem);
    if (problem !== null) return;
    save.mutate(toRequest(v, editing), {
      onSuccess: (saved) => {
        if (preset.kind === "none") return void navigate(`/monitors/${saved.id}`);
        alerts.mutate(saved.id, { onSuccess: () => void navigate(`/monitors/${saved.id}`) });
      },
    });
  }

  return (
    <Page title={editing ? `Edit ${monitor.name}` : "New monitor"}>
      <form className="form card" onSubmit={submit}>
        <fieldset disabled={editing}>
          <legend>What to watch</legend>
          <label className="inline">
            <input type="radio" name="type" value="api" checked={v.type === "api"} onChange={() => set("type", "api")} /> An API (JSON)
          </label>
          <label className="inline">
            <input type="radio" name="type" value="website" checked={v.type === "website"} onChange={() => set("type", "website")} /> A web page
          </label>
          <label className="inline">
            <input type="radio" name="type" value="openapi" checked={v.type === "openapi"} onChange={() => set("type", "openapi")} /> An OpenAPI document (breaking API changes)
          </label>
          {editing ? <p className="hint">The type of a monitor cannot change; create another monitor instead.</p> : null}
        </fieldset>
        <label htmlFor="f-url">URL</label>
        <input id="f-url" type="url" required value={v.url} placeholder="https://api.example.com/v1/status" onChange={(e) => set("url", e.target.value)} />
        <label htmlFor="f-name">Name</label>
        <input id="f-name" value={v.name} maxLength={200} placeholder="Defaults to the URL's host and path" onChange={(e) => set("name", e.target.value)} />
        <label htmlFor="f-tags">Tags</label>
        <input
          id="f-tags"
          value={v.tags}
          placeholder="production, team:payments"
          aria-describedby="f-tags-hint"
          autoComplete="off"
          onChange={(e) => set("tags", e.target.value)}
        />
        <p className="hint" id="f-tags-hint">
          Separated by commas; up to 20, each of lowercase letters, digits, -, _, : and . (filter the monitors list by them).
        </p>
        <div className="grid2">
          <div>
            <label htmlFor="f-method">Method</label>
            <select id="f-method" value={v.method} onChange={(e) => set("method", e.target.value as MonitorFormValues["method"])}>
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="f-interval">Check every</label>
            <select id="f-interval" value={v.intervalSeconds} onChange={(e) => set("intervalSeconds", Number(e.target.value))}>
              {intervals.map(([s, label]) => (
                <option key={s} value={s}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <fieldset>
          <legend>Request headers</legend>
          {v.headers.length === 0 ? <p className="hint">None. Credentials (authorization, cookies, keys, tokens) are stored and never shown again.</p> : null}
          {v.headers.map((row, i) => {
            const secret = isCredentialHeader(row.name);
            return (
              <div className="header-row" key={i}>
                <label>
                  Header name
                  <input
                    value={row.name}
                    onChange={(e) =>
                      set(
                        "headers",
                        v.headers.map((h, j) => (j === i ? { ...h, name: e.target.value } : h)),
                      )
                    }
                  />
                </label>
                <label>
                  Header value{secret ? " (secret)" : ""}
                  <input
                    type={secret ? "password" : "text"}
                    autoComplete="off"
                    value={row.value}
                    onChange={(e) =>
                      set(
                        "headers",
                        v.headers.map((h, j) => (j === i ? { ...h, value: e.target.value } : h)),
                      )
                    }
                  />
                </label>
                <button
                  type="button"
                  onClick={() =>
                    set(
                      "headers",
                      v.headers.filter((_, j) => j !== i),
                    )
                  }
                >
                  Remove<span className="sr-only"> header {row.name}</span>
                </button>
                {secret && row.value === "***" ? <p className="hint">Stored value kept unless you type a new one.</p> : null}
              </div>
            );
          })}
          <button type="button" onClick={() => set("headers", [...v.headers, { name: "", value: "" }])}>
            Add header
          </button>
        </fieldset>
        {v.method !== "GET" && v.method !== "HEAD" ? (
          <>
            <label htmlFor="f-body">Request body</label>
            <textarea id="f-body" rows={4} value={v.body} onChange={(e) => set("body", e.target.value)} />
          </>
        ) : null}
        {v.type === "api" ? <ContractFields value={v.contract} onChange={(contract) => set("contract", contract)} error={save.error} /> : null}
        {v.type === "website" ? (
          <fieldset>
            <legend>Web page</legend>
            <label htmlFor="f-selector">Only this part of the page (CSS selector)</label>
            <input id="f-selector" value={v.selector} placeholder="main article" onChange={(e) => set("selector", e.target.value)} />
            <SelectorPicker request={browserRequest} onPick={(selector) => set("selector", selector)} />
            {needUrl ? (
              <p className="field-error" role="alert">
                Type the page's URL first.
              </p>
            ) : null}
            <label className="inline">
              <input type="checkbox" checked={v.browser} onChange={(e) => set("browser", e.target.checked)} /> Render in a browser (for pages built by JavaScript)
            </label>
            {v.browser ? (
              <div className="grid2">
                <div>
                  <label htmlFor="f-wait">Wait until</label>
                  <select id="f-wait" value={v.waitStrategy} onChange={(e) => set("waitStrategy", e.target.value as MonitorFormValues["waitStrategy"])}>
                    {WAIT_STRATEGIES.map((w) => (
                      <option key={w}>{w}</option>
                    ))}
                  </select>
                </div>
                <div>
                  <label htmlFor="f-wfs">Wait for selector</label>
                  <input id="f-wfs" value={v.waitForSelector} onChange={(e) => set("waitForSelector", e.target.value)} />
                </div>
                <div>
                  <label htmlFor="f-timeout">Timeout (ms)</label>
                  <input id="f-timeout" type="number" min={1000} max={60000} step={1000} value={v.timeoutMs} onChange={(e) => set("timeoutMs", Number(e.target.value))} />
                </div>
                <div>
                  <label htmlFor="f-extra">Extra wait (ms)</label>
                  <input id="f-extra" type="number" min={0} max={10000} step={100} value={v.extraWaitMs} onChange={(e) => set("extraWaitMs", Number(e.target.value))} />
                </div>
                <div>
                  <label htmlFor="f-vw">Viewport width</label>
                  <input id="f-vw" type="number" min={320} max={3840} value={v.viewportWidth} onChange={(e) => set("viewportWidth", e.target.value)} />
                </div>
                <div>
                  <label htmlFor="f-vh">Viewport height</label>
                  <input id="f-vh" type="number" min={240} max={4320} value={v.viewportHeight} onChange={(e) => set("viewportHeight", e.target.value)} />
                </div>
                <div>
                  <label htmlFor="f-ua">User agent</label>
                  <input id="f-ua" value={v.userAgent} onChange={(e) => set("userAgent", e.target.value)} />
                </div>
                <div>
                  <label htmlFor="f-locale">Locale</label>
                  <input id="f-locale" value={v.locale} placeholder="en-GB" onChange={(e) => set("locale", e.target.value)} />
                </div>
                <div>
                  <label htmlFor="f-shot">Screenshot on each check</label>
                  <select id="f-shot" value={v.screenshot} onChange={(e) => set("screenshot", e.target.value as MonitorFormValues["screenshot"])}>
                    {SCREENSHOT_MODES.map(([mode, label]) => (
                      <option key={mode} value={mode}>
                        {label}
                      </option>
                    ))}
                  </select>
                </div>
                <fieldset className="span2">
                  <legend>Do not load</legend>
                  {BLOCKABLE.map((r) => (
                    <label className="inline" key={r}>
                      <input
                        type="checkbox"
                        checked={v.blockResources.includes(r)}
                        onChange={(e) => set("blockResources", e.target.checked ? [...v.blockResources, r] : v.blockResources.filter((x) => x !== r))}
                      />{" "}
                      {r}s
                    </label>
                  ))}
                </fieldset>
                <div className="span2">
                  <StepsEditor steps={v.steps} onChange={(steps) => set("steps", steps)} request={browserRequest} />
                </div>
              </div>
            ) : null}
          </fieldset>
        ) : null}
        <fieldset>
          <legend>Alert me</legend>
          <label className="inline">
            <input type="radio" name="preset" checked={preset.kind === "none"} onChange={() => setPreset({ ...preset, kind: "none" })} /> On every change{editing ? " (or as the monitor's alerts say)" : ""}
          </label>
          {v.type === "website" ? (
            <label className="inline">
              <input type="radio" name="preset" checked={preset.kind === "restock"} onChange={() => setPreset({ ...preset, kind: "restock" })} /> When it is back in stock
            </label>
          ) : null}
          <label className="inline">
            <input type="radio" name="preset" checked={preset.kind === "price_below"} onChange={() => setPreset({ ...preset, kind: "price_below" })} /> When the price falls below…
          </label>
          {preset.kind === "price_below" ? (
            <>
              <label htmlFor="f-below">Price below</label>
              <input id="f-below" inputMode="decimal" value={preset.below} placeholder="200" onChange={(e) => setPreset({ ...preset, below: e.target.value })} />
            </>
          ) : null}
          {preset.kind !== "none" ? (
            <>
              <label htmlFor="f-where">{v.type === "api" ? "JSONPath of the price" : "Where on the page (optional selector)"}</label>
              <input
                id="f-where"
                value={preset.where}
                placeholder={v.type === "api" ? "$.price" : "read from the page's product data"}
                onChange={(e) => setPreset({ ...preset, where: e.target.value })}
              />
              <p className="hint">
                Replaces the monitor's alert conditions; edit them later on its Alerts page.
              </p>
            </>
          ) : null}
          {presetError ? (
            <p className="field-error" role="alert">
              {presetError}
            </p>
          ) : null}
        </fieldset>
        <MutationError error={save.error ?? alerts.error} />
        {alerts.error && save.data ? (
          <p>
            The monitor is saved; <Link to={`/monitors/${save.data.id}/alerts`}>set its alerts on its Alerts page</Link>.
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending || alerts.isPending}>
            {save.isPending ? "Saving…" : editing ? "Save changes" : "Create monitor"}
          </button>
          <button type="button" onClick={() => void navigate(-1)}>
            Cancel
          </button>
        </div>
      </form>
    </Page>
  );
}
