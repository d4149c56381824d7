import type { Driftwatch } from "@driftwatch/client";
import { createContext, useContext, type ReactNode } from "react";

const ClientContext = createContext<Driftwatch | null>(null);

export function ClientProvider({ client, children }: { client: Driftwatch; children: ReactNode }): ReactNode {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

/** The signed-in session's API client (the only way the dashboard reaches the server). */
export function useClient(): Driftwatch {
  const client = useContext(ClientContext);
  if (client === null) throw new Error("useClient outside a signed-in session");
  return client;
}
