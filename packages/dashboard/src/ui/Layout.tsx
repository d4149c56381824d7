import type { ReactNode } from "react";
import { NavLink, Outlet } from "react-router";
import { useCan } from "../auth/session-context";
import { SignOutButton } from "../auth/SignOutButton";
import { useLiveEvents } from "../live/useLiveEvents";

/** The pages of the main navigation; `admin` ones are hidden from other roles. */
const NAV: Array<[string, string, "admin" | null]> = [
  ["/monitors", "Monitors", null],
  ["/webhooks", "Webhooks", null],
  ["/notifications", "Notifications", null],
  ["/members", "Members", "admin"],
  ["/tokens", "Tokens", "admin"],
  ["/audit", "Audit log", "admin"],
  ["/org", "Organization", null],
  ["/account", "Account", null],
  ["/settings", "Settings", null],
];

export function Layout(): ReactNode {
  const isAdmin = useCan("admin");
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
            {NAV.filter(([, , needs]) => needs === null || isAdmin).map(([to, label]) => (
              <li key={to}>
                <NavLink to={to}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <span className={`live live-${live}`} role="status" title="Live updates from the server">
          {live === "open" ? "Live" : live === "connecting" ? "Connecting…" : "Offline, retrying"}
        </span>
        <SignOutButton className="link" />
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
