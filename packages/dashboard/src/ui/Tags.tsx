import type { ReactNode } from "react";

/** A monitor's tags as a list of chips; nothing (or `empty`) when it has none. */
export function TagList({ tags, empty = null }: { tags: readonly string[]; empty?: ReactNode }): ReactNode {
  if (tags.length === 0) return empty;
  return (
    <ul className="tag-list" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag} className="tag">
          {tag}
        </li>
      ))}
    </ul>
  );
}
