import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// waitFor and findBy* give up after 1 s by default: too soon for a render and its requests on a loaded
// 2-core CI machine. The deadline only bounds the wait; what is awaited stays the same.
configure({ asyncUtilTimeout: 20_000 });

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

// jsdom has no layout: give measured rows the height a browser would, and the APIs the virtualiser calls.
const rect = Element.prototype.getBoundingClientRect;
Element.prototype.getBoundingClientRect = function (this: Element): DOMRect {
  if (this instanceof HTMLElement && this.dataset.index !== undefined) return { x: 0, y: 0, top: 0, left: 0, bottom: 76, right: 1000, width: 1000, height: 76, toJSON: () => ({}) };
  return rect.call(this);
};
const offsetHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "offsetHeight")!;
Object.defineProperty(HTMLElement.prototype, "offsetHeight", {
  configurable: true,
  get(this: HTMLElement): number {
    return this.dataset.index !== undefined ? 76 : (offsetHeight.get!.call(this) as number);
  },
});
window.scrollTo = (() => undefined) as typeof window.scrollTo;
globalThis.ResizeObserver ??= class {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
} as unknown as typeof ResizeObserver;
