import { useState, type ReactNode } from "react";
import { RelativeTime } from "../../ui/RelativeTime";
import { useScreenshot, type StepFailure } from "./api";

/** How many of the newest checks the timeline shows. */
const SHOWN = 8;

function Thumb({ monitorId, snapshotId, at, selected, onSelect }: { monitorId: string; snapshotId: string; at: string; selected: boolean; onSelect: () => void }): ReactNode {
  const shot = useScreenshot(monitorId, snapshotId);
  return (
    <li className={selected ? "selected" : undefined}>
      <button type="button" aria-pressed={selected} onClick={onSelect} disabled={shot.url === null}>
        {shot.url ? <img src={shot.url} alt="" /> : <span className="muted">{shot.isPending ? "loading…" : shot.missing ? "no screenshot" : "failed"}</span>}
        <span className="sr-only">Screenshot of the check </span>
        <RelativeTime value={at} />
      </button>
    </li>
  );
}

function Large({ monitorId, snapshotId }: { monitorId: string; snapshotId: string }): ReactNode {
  const shot = useScreenshot(monitorId, snapshotId);
  return shot.url ? <img className="shot-large" src={shot.url} alt="The page at the selected check" /> : null;
}

/** The screenshots of the newest checks, newest first; one shown large. */
export function ScreenshotTimeline({ monitorId, snapshots }: { monitorId: string; snapshots: ReadonlyArray<{ id: string; fetchedAt: string }> }): ReactNode {
  const shown = snapshots.slice(0, SHOWN);
  const [selected, setSelected] = useState<string | null>(null);
  const current = selected ?? shown[0]?.id ?? null;
  if (shown.length === 0) return <p className="muted">No checks yet.</p>;
  return (
    <div className="shot-timeline">
      <ol aria-label="Screenshots, newest first">
        {shown.map((s) => (
          <Thumb key={s.id} monitorId={monitorId} snapshotId={s.id} at={s.fetchedAt} selected={s.id === current} onSelect={() => setSelected(s.id)} />
        ))}
      </ol>
      {current ? <Large monitorId={monitorId} snapshotId={current} /> : null}
    </div>
  );
}

/** A check that failed at a browser step: which step, its action and selector. */
export function StepFailureNote({ failure }: { failure: StepFailure }): ReactNode {
  return (
    <div className="state error" role="alert">
      <p>
        <strong>
          Step {failure.step.index + 1} ({failure.step.action}) failed
        </strong>
        {failure.step.selector ? (
          <>
            {" "}
            on <code className="break">{failure.step.selector}</code>
          </>
        ) : null}
        {failure.message ? `: ${failure.message}` : "."}
      </p>
      <p>The steps before it ran; fix the step in the monitor's browser steps and try them with a dry run.</p>
    </div>
  );
}
