import type { Severity } from "@driftwatch/client";
import type { ReactNode } from "react";
import { SEVERITIES, severityRank } from "../../ui/severity";

/**
 * How a change looks in Slack (Block Kit), Discord (an embed) and Microsoft Teams (an Adaptive
 * Card), drawn from the notification's fields as @driftwatch/notify lays them out (that package
 * needs Node, so the dashboard does not import it). Everything is rendered as text by React.
 */

export interface PreviewChange {
  path: string;
  op: "add" | "remove" | "replace";
  severity: Severity;
  before?: string;
  after?: string;
}

export interface PreviewNotification {
  monitorName: string;
  classification: string;
  topSeverity: Severity;
  changes: PreviewChange[];
  totalChanges: number;
  link?: string;
}

export interface PreviewModel {
  title: string;
  summary: string;
  classificationLabel: string;
  severity: Severity;
  changes: PreviewChange[];
  more: number;
  link?: string;
}

/** The sample `driftwatch notify test` sends. */
export const SAMPLE_NOTIFICATION: PreviewNotification = {
  monitorName: "Payments API /v1/status",
  classification: "schema_change",
  topSeverity: "high",
  changes: [
    { path: "$.price", op: "replace", severity: "high", before: '"12.50"', after: "12.5" },
    { path: "$.items[0].sku", op: "remove", severity: "medium", before: '"A-1"' },
    { path: "$.updatedAt", op: "replace", severity: "info", before: '"2026-01-01"', after: '"2026-01-02"' },
  ],
  totalChanges: 3,
  link: "https://driftwatch.example.com/monitors/mon_test/diffs/dif_test",
};

const LABELS: Record<string, string> = { schema_change: "schema change", value_change: "value change", content_change: "content change", visual_change: "visual change" };

/** The channel-neutral message: most severe changes first, at most `max` listed, "and N more". */
export function previewModel(n: PreviewNotification, max = 10): PreviewModel {
  const ordered = n.changes.map((c, i) => ({ c, i })).sort((a, b) => severityRank(b.c.severity) - severityRank(a.c.severity) || a.i - b.i).map(({ c }) => c);
  const label = LABELS[n.classification] ?? n.classification.replace(/_/g, " ");
  const total = Math.max(n.totalChanges, n.changes.length);
  const counts = SEVERITIES.map((s) => [s, n.changes.filter((c) => c.severity === s).length] as const).filter(([, k]) => k > 0);
  const listed = ordered.slice(0, max);
  return {
    title: `[${n.topSeverity.toUpperCase()}] ${n.monitorName}: ${label}`,
    summary: `${String(total)} change${total === 1 ? "" : "s"}${counts.length ? ` (${counts.map(([s, k]) => `${String(k)} ${s}`).join(", ")})` : ""}`,
    classificationLabel: label,
    severity: n.topSeverity,
    changes: listed,
    more: total - listed.length,
    ...(n.link ? { link: n.link } : {}),
  };
}

/** `before -> after`, `added: x`, `removed: x`. */
export function changeValues(c: PreviewChange): string {
  if (c.before !== undefined && c.after !== undefined) return `${c.before} -> ${c.after}`;
  if (c.after !== undefined) return `added: ${c.after}`;
  if (c.before !== undefined) return `removed: ${c.before}`;
  return c.op;
}

function SlackPreview({ m }: { m: PreviewModel }): ReactNode {
  return (
    <div className="mp mp-slack" aria-label="Slack message">
      <div className="mp-avatar" aria-hidden="true">
        dw
      </div>
      <div className="mp-body">
        <p className="mp-author">
          driftwatch <span className="mp-app">APP</span>
        </p>
        <p className="mp-header">{m.title}</p>
        <p>
          <strong>{m.classificationLabel}</strong> · {m.summary}
        </p>
        <ul className="mp-list">
          {m.changes.map((c, i) => (
            <li key={i}>
              <code>{c.path}</code> {changeValues(c)} <em>({c.severity})</em>
            </li>
          ))}
        </ul>
        {m.more > 0 ? <p className="mp-context">and {m.more} more</p> : null}
        {m.link ? <span className="mp-button">View diff</span> : null}
      </div>
    </div>
  );
}

function DiscordPreview({ m }: { m: PreviewModel }): ReactNode {
  return (
    <div className="mp mp-discord" aria-label="Discord message">
      <div className="mp-avatar" aria-hidden="true">
        dw
      </div>
      <div className="mp-body">
        <p className="mp-author">
          driftwatch <span className="mp-app">BOT</span>
        </p>
        <div className={`mp-embed sevbar-${m.severity}`}>
          <p className="mp-title">{m.link ? <span className="mp-link">{m.title}</span> : m.title}</p>
          <p>{m.summary}</p>
          {m.changes.map((c, i) => (
            <div key={i} className="mp-field">
              <p className="mp-field-name">
                {c.path} ({c.severity})
              </p>
              <p>{changeValues(c)}</p>
            </div>
          ))}
          <p className="mp-context">{m.more > 0 ? `and ${String(m.more)} more · ` : ""}driftwatch</p>
        </div>
      </div>
    </div>
  );
}

function TeamsPreview({ m }: { m: PreviewModel }): ReactNode {
  return (
    <div className="mp mp-teams" aria-label="Microsoft Teams message">
      <div className="mp-card">
        <p className={`mp-title mp-sev-${m.severity}`}>{m.title}</p>
        <p className="mp-context">{m.summary}</p>
        <dl className="mp-facts">
          {m.changes.map((c, i) => (
            <div key={i}>
              <dt>{c.path}</dt>
              <dd>
                {changeValues(c)} ({c.severity})
              </dd>
            </div>
          ))}
        </dl>
        {m.more > 0 ? <p className="mp-context">and {m.more} more</p> : null}
        {m.link ? <span className="mp-button">Open in driftwatch</span> : null}
      </div>
    </div>
  );
}

export type PreviewStyle = "slack" | "discord" | "teams";

/** The preview style of a service name (`Slack`, `Discord`, `Microsoft Teams`), or null. */
export function previewStyleOf(service: string): PreviewStyle | null {
  const s = service.toLowerCase();
  if (s.includes("slack")) return "slack";
  if (s.includes("discord")) return "discord";
  if (s.includes("teams")) return "teams";
  return null;
}

export function MessagePreview({ style, notification = SAMPLE_NOTIFICATION }: { style: PreviewStyle; notification?: PreviewNotification }): ReactNode {
  const m = previewModel(notification);
  return style === "slack" ? <SlackPreview m={m} /> : style === "discord" ? <DiscordPreview m={m} /> : <TeamsPreview m={m} />;
}
