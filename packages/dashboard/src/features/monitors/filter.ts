import type { Diff, Monitor, Severity } from "@driftwatch/client";
import { severityRank } from "../../ui/severity";

export interface MonitorFilter {
  search: string;
  type: "" | Monitor["type"];
  state: "" | Monitor["state"];
  /** Only monitors with this tag. */
  tag: string;
  /** Only monitors whose latest change is at least this severe. */
  minSeverity: "" | Severity;
}

export const NO_FILTER: MonitorFilter = { search: "", type: "", state: "", tag: "", minSeverity: "" };

/** Every tag the monitors have, sorted, once each (the choices of the tag filter). */
export function tagsOf(monitors: readonly Monitor[]): string[] {
  return [...new Set(monitors.flatMap((m) => m.tags))].sort();
}

/** The monitors a filter keeps; `latest` gives a monitor's newest diff when known (undefined: not loaded). */
export function filterMonitors(monitors: readonly Monitor[], filter: MonitorFilter, latest: (id: string) => Diff | null | undefined): Monitor[] {
  const needle = filter.search.trim().toLowerCase();
  return monitors.filter((m) => {
    if (needle !== "" && !m.name.toLowerCase().includes(needle) && !m.url.toLowerCase().includes(needle) && m.id !== needle) return false;
    if (filter.type !== "" && m.type !== filter.type) return false;
    if (filter.state !== "" && m.state !== filter.state) return false;
    if (filter.tag !== "" && !m.tags.includes(filter.tag)) return false;
    if (filter.minSeverity !== "") {
      const diff = latest(m.id);
      if (diff == null || severityRank(diff.topSeverity) < severityRank(filter.minSeverity)) return false;
    }
    return true;
  });
}
