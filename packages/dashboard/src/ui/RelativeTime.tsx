import { useEffect, useState, type ReactNode } from "react";
import { formatExact, formatRelative } from "./time";

let listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

/** One shared 15 s tick for every relative time on the page. */
function useTick(): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const listener = (): void => setTick((t) => t + 1);
    listeners.add(listener);
    timer ??= setInterval(() => {
      for (const l of listeners) l();
    }, 15_000);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
        listeners = new Set();
      }
    };
  }, []);
  return tick;
}

/** "3 minutes ago" with the exact time on hover (and for screen readers through `title` and `dateTime`). */
export function RelativeTime({ value, empty = "never" }: { value: string | null | undefined; empty?: string }): ReactNode {
  useTick();
  if (value == null) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={value} title={formatExact(value)}>
      {formatRelative(value)}
    </time>
  );
}
