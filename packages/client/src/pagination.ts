import type { Page } from "@driftwatch/schema";
import type { APIPromise } from "./core.js";

/** One page of a list, able to fetch the next one. */
export class PageResult<T> implements Page<T> {
  readonly data: T[];
  readonly nextCursor: string | null;
  readonly #fetchPage: (cursor: string) => APIPromise<Page<T>>;

  constructor(page: Page<T>, fetchPage: (cursor: string) => APIPromise<Page<T>>) {
    this.data = page.data;
    this.nextCursor = page.nextCursor;
    this.#fetchPage = fetchPage;
  }

  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  async getNextPage(): Promise<PageResult<T> | null> {
    if (this.nextCursor === null) return null;
    return new PageResult(await this.#fetchPage(this.nextCursor), this.#fetchPage);
  }

  /** Every item of this page and the pages after it. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    let page: PageResult<T> | null = this;
    while (page) {
      yield* page.data;
      page = await page.getNextPage();
    }
  }
}

/**
 * What list methods return: await it for the first page, or iterate it for every item across
 * pages: `for await (const diff of client.diffs.list(monitorId)) { ... }`.
 */
export class PagePromise<T> implements PromiseLike<PageResult<T>>, AsyncIterable<T> {
  readonly #first: Promise<PageResult<T>>;

  constructor(fetchPage: (cursor: string | undefined) => APIPromise<Page<T>>) {
    this.#first = Promise.resolve(fetchPage(undefined)).then((page) => new PageResult(page, (cursor) => fetchPage(cursor)));
    this.#first.catch(() => undefined);
  }

  then<A = PageResult<T>, B = never>(
    onfulfilled?: ((value: PageResult<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#first.then(onfulfilled, onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    yield* await this.#first;
  }
}
