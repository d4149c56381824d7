import { createContext, useContext } from "react";

export interface SessionActions {
  signOut(): void;
}

export const SessionContext = createContext<SessionActions>({ signOut: () => undefined });

export function useSessionActions(): SessionActions {
  return useContext(SessionContext);
}
