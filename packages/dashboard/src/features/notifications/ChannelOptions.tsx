import type { Severity } from "@driftwatch/client";
import type { ReactNode } from "react";
import { parseTags } from "../monitors/form";
import { SeverityOptions } from "../../ui/severity";
import type { ChannelCreate, ChannelEvent, QuietHours } from "./api";

/** The options every channel has, as typed in the form. */
export interface ChannelOptionValues {
  minSeverity: Severity;
  tags: string;
  events: ChannelEvent[];
  groupSeconds: string;
  quiet: boolean;
  timeZone: string;
  quietStart: string;
  quietEnd: string;
  quietMinSeverity: Severity;
  template: string;
}

export function defaultOptions(): ChannelOptionValues {
  let timeZone = "UTC";
  try {
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    // keep UTC
  }
  return { minSeverity: "info", tags: "", events: ["diff.detected"], groupSeconds: "", quiet: false, timeZone, quietStart: "22:00", quietEnd: "07:00", quietMinSeverity: "critical", template: "" };
}

/** The options of a stored channel, as the form shows them. */
export function optionsOf(c: { minSeverity: Severity; tags: string[]; events: ChannelEvent[]; groupSeconds: number; quietHours: QuietHours | null; template: string | null }): ChannelOptionValues {
  const base = defaultOptions();
  const window = c.quietHours?.windows[0];
  return {
    minSeverity: c.minSeverity,
    tags: c.tags.join(", "),
    events: c.events,
    groupSeconds: c.groupSeconds > 0 ? String(c.groupSeconds) : "",
    quiet: c.quietHours !== null,
    timeZone: c.quietHours?.timeZone ?? base.timeZone,
    quietStart: window?.start ?? base.quietStart,
    quietEnd: window?.end ?? base.quietEnd,
    quietMinSeverity: c.quietHours?.minSeverity ?? base.quietMinSeverity,
    template: c.template ?? "",
  };
}

/** The request fields of the options (left out when empty). */
export function optionsBody(o: ChannelOptionValues): Omit<ChannelCreate, "name" | "url"> {
  const quietHours: QuietHours | null = o.quiet ? { timeZone: o.timeZone.trim(), windows: [{ start: o.quietStart, end: o.quietEnd }], minSeverity: o.quietMinSeverity } : null;
  return {
    minSeverity: o.minSeverity,
    tags: parseTags(o.tags),
    events: o.events,
    groupSeconds: o.groupSeconds.trim() === "" ? 0 : Number(o.groupSeconds),
    quietHours,
    template: o.template.trim() === "" ? null : o.template,
  };
}

const EVENTS: Array<[ChannelEvent, string]> = [
  ["diff.detected", "Changes"],
  ["monitor.failing", "A monitor fails"],
  ["monitor.recovered", "A monitor recovers"],
];

export function ChannelOptionsFields({ value: o, onChange }: { value: ChannelOptionValues; onChange: (next: ChannelOptionValues) => void }): ReactNode {
  const set = <K extends keyof ChannelOptionValues>(key: K, v: ChannelOptionValues[K]): void => onChange({ ...o, [key]: v });
  return (
    <fieldset>
      <legend>What it gets</legend>
      <div className="grid2">
        <div>
          <label htmlFor="c-sev">Only changes at least</label>
          <select id="c-sev" value={o.minSeverity} onChange={(e) => set("minSeverity", e.target.value as Severity)}>
            <SeverityOptions />
          </select>
        </div>
        <div>
          <label htmlFor="c-group">Group changes for (seconds)</label>
          <input id="c-group" type="number" min={0} max={86400} value={o.groupSeconds} placeholder="send each at once" onChange={(e) => set("groupSeconds", e.target.value)} />
        </div>
      </div>
      <label htmlFor="c-tags">Monitors with these tags</label>
      <input id="c-tags" value={o.tags} placeholder="all monitors" aria-describedby="c-tags-hint" autoComplete="off" onChange={(e) => set("tags", e.target.value)} />
      <p className="hint" id="c-tags-hint">
        Separated by commas; a monitor with any of them. Empty: every monitor.
      </p>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map(([event, label]) => (
          <label className="inline" key={event}>
            <input
              type="checkbox"
              checked={o.events.includes(event)}
              onChange={(e) => set("events", e.target.checked ? [...o.events, event] : o.events.filter((x) => x !== event))}
            />{" "}
            {label}
          </label>
        ))}
      </fieldset>
      <label className="inline">
        <input type="checkbox" checked={o.quiet} onChange={(e) => set("quiet", e.target.checked)} /> Quiet hours (hold messages, then send one summary)
      </label>
      {o.quiet ? (
        <div className="grid2">
          <div>
            <label htmlFor="c-qs">From</label>
            <input id="c-qs" type="time" required value={o.quietStart} onChange={(e) => set("quietStart", e.target.value)} />
          </div>
          <div>
            <label htmlFor="c-qe">Until</label>
            <input id="c-qe" type="time" required value={o.quietEnd} onChange={(e) => set("quietEnd", e.target.value)} />
          </div>
          <div>
            <label htmlFor="c-tz">Time zone</label>
            <input id="c-tz" required value={o.timeZone} placeholder="Europe/Berlin" onChange={(e) => set("timeZone", e.target.value)} />
          </div>
          <div>
            <label htmlFor="c-qsev">Send anyway from</label>
            <select id="c-qsev" value={o.quietMinSeverity} onChange={(e) => set("quietMinSeverity", e.target.value as Severity)}>
              <SeverityOptions />
            </select>
          </div>
        </div>
      ) : null}
      <label htmlFor="c-template">Template (optional)</label>
      <textarea
        id="c-template"
        rows={3}
        value={o.template}
        placeholder="{{monitor.name}}: {{topSeverity}} change, {{changeCount}} changes"
        aria-describedby="c-template-hint"
        onChange={(e) => set("template", e.target.value)}
      />
      <p className="hint" id="c-template-hint">
        Logic-less; replaces the message text. An invalid template is refused with the error's place.
      </p>
    </fieldset>
  );
}
