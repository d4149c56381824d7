import type { ReactNode } from "react";
import { useSessionActions } from "./session-context";

/** Ends this tab's session (an account's on the server too). */
export function SignOutButton({ className }: { className?: string }): ReactNode {
  const { signOut } = useSessionActions();
  return (
    <button type="button" className={className} onClick={signOut}>
      Sign out
    </button>
  );
}
