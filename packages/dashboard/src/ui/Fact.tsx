import type { ReactNode } from "react";

/** One term of a description list (`<dl className="summary">`): a label and its value. */
export function Fact({ label, wide, valueClass, children }: { label: string; wide?: boolean; valueClass?: string; children: ReactNode }): ReactNode {
  return (
    <div className={wide ? "wide" : undefined}>
      <dt>{label}</dt>
      <dd className={valueClass}>{children}</dd>
    </div>
  );
}
