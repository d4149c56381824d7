import type { ReactNode } from "react";
import { NavLink, Outlet } from "react-router";
import { useSessionActions } from "../auth/session-context";
import { useLiveEvents } from "../live/useLiveEvents";

const NAV: Array<[string, string]> = [
  ["/monitors", "Monitors"],
  ["/webhooks", "Webhooks"],
  ["/tokens", "Tokens"],
  ["/settings", "Settings"],
];

export function Layout(): ReactNode {
  const { signOut } = useSessionActions();
  const live = useLiveEvents();
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <NavLink to="/monitors" className="brand">
          <span className="logo" aria-hidden="true" /> driftwatch
        </NavLink>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <NavLink to={to}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <span className={`live live-${live}`} role="status" title="Live updates from the server">
          {live === "open" ? "Live" : live === "connecting" ? "Connecting…" : "Offline, retrying"}
        </span>
        <button type="button" className="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
