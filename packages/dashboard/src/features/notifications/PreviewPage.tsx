import type { ReactNode } from "react";
import { Link } from "react-router";
import { Page } from "../../ui/Page";
import { MessagePreview } from "./MessagePreview";

/** The sample message as Slack, Discord and Teams show it (for the docs' screenshots, and to see before adding a channel). */
export function PreviewPage(): ReactNode {
  return (
    <Page title="Message preview">
      <p>
        <Link to="/notifications">← Notifications</Link>
      </p>
      <p className="muted">A sample change as each service renders driftwatch's message: the title with the top severity, the most severe changes first, a link to the diff.</p>
      <h2>Slack</h2>
      <MessagePreview style="slack" />
      <h2>Discord</h2>
      <MessagePreview style="discord" />
      <h2>Microsoft Teams</h2>
      <MessagePreview style="teams" />
    </Page>
  );
}
