import type { Me, Scope } from "@driftwatch/client";
import { createContext, useContext } from "react";
import type { Session } from "./session";

export interface SessionActions {
  /** How this tab is signed in. */
  session: Session | null;
  /** Who is calling (user, organization, role, scopes); null while unknown (a server without accounts). */
  me: Me | null;
  signOut(): void;
  /** Replaces the session after switching organization (the caches start afresh). */
  switched(me: Me): void;
}

export const SessionContext = createContext<SessionActions>({ session: null, me: null, signOut: () => undefined, switched: () => undefined });

export function useSessionActions(): SessionActions {
  return useContext(SessionContext);
}

/** Whether `scopes` allow `scope` (`admin` allows everything). */
export function allows(scopes: readonly Scope[], scope: Scope): boolean {
  return scopes.includes("admin") || scopes.includes(scope);
}

/**
 * Whether the caller may do what `scope` covers, to hide the controls it may not use. Unknown
 * (`me` not read) counts as allowed: the server enforces either way and answers 403.
 */
export function useCan(scope: Scope): boolean {
  const { me } = useSessionActions();
  return me === null || allows(me.scopes, scope);
}

/** Whether the caller is an owner signed in with an account (what only an owner's session may do). */
export function useIsOwnerSession(): boolean {
  const { me } = useSessionActions();
  return me !== null && me.via === "session" && me.role === "owner";
}
