import { useState, type ReactNode } from "react";
import { MutationError } from "../../ui/FieldErrors";
import { useInspect, type BrowserRequest, type InspectElement } from "./api";
import { regionStyle } from "./VisualCompare";

/**
 * The point-and-click selector: the rendered page with a box on each visible block; clicking one
 * previews the text it selects now, and "Use this selector" puts it in the form.
 */
export function SelectorPicker({ request, onPick }: { request: () => BrowserRequest | null; onPick: (selector: string) => void }): ReactNode {
  const inspect = useInspect();
  const [chosen, setChosen] = useState<InspectElement | null>(null);
  const page = inspect.data;
  // the largest first, so that a smaller box inside a larger one lies on top and can be clicked
  const elements = page ? [...page.elements].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height) : [];
  return (
    <div className="picker">
      <button
        type="button"
        disabled={inspect.isPending}
        onClick={() => {
          const body = request();
          if (body === null) return;
          setChosen(null);
          inspect.mutate(body);
        }}
      >
        {inspect.isPending ? "Rendering the page…" : page ? "Render again" : "Pick on the page"}
      </button>
      <MutationError error={inspect.error} />
      {page ? (
        <>
          <p className="hint">Click the part of the page to watch ({page.elements.length} blocks).</p>
          <div className="picker-frame">
            <img src={page.screenshot} alt="The rendered page" />
            {/*
              Pointer and touch targets over the image; keyboards and screen readers use the list
              below, the same blocks (the boxes of small blocks are too small to be the only way).
            */}
            <div className="picks" aria-hidden="true">
              {elements.map((el) => (
                <span
                  key={el.selector}
                  className={`pick${chosen?.selector === el.selector ? " chosen" : ""}`}
                  style={regionStyle(el.box, page.width, page.height)}
                  data-selector={el.selector}
                  title={el.selector}
                  onClick={() => setChosen(el)}
                />
              ))}
            </div>
          </div>
          {/* small blocks are hard to tap on a narrow screen: the same blocks as a list */}
          <label htmlFor="pick-list">Block to watch</label>
          <select
            id="pick-list"
            value={chosen?.selector ?? ""}
            onChange={(e) => setChosen(page.elements.find((el) => el.selector === e.target.value) ?? null)}
          >
            <option value="">choose…</option>
            {page.elements.map((el) => (
              <option key={el.selector} value={el.selector}>
                {el.selector} — {el.text.length > 40 ? `${el.text.slice(0, 40)}…` : el.text}
              </option>
            ))}
          </select>
          {chosen ? (
            <div className="picked card" aria-live="polite">
              <p>
                Selector <code className="break">{chosen.selector}</code> selects now:
              </p>
              <blockquote className="break">{chosen.text === "" ? <span className="muted">(no text)</span> : chosen.text}</blockquote>
              <button type="button" className="primary" onClick={() => onPick(chosen.selector)}>
                Use this selector
              </button>
            </div>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
