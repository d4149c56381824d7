import type { BinaryBody, Driftwatch } from "@driftwatch/client";

type Method = "GET" | "POST" | "PATCH" | "DELETE";
type Query = Record<string, string | number | boolean | undefined | null>;

/**
 * Calls an API route the typed client has no method for yet (notification channels, secrets,
 * screenshots, tracked values), through the client's transport: same session or token, CSRF,
 * retries and problem errors. Each feature's `api.ts` calls it in one place, so that switching to
 * the client's typed methods later touches only that file.
 */
export function apiRequest<T>(client: Driftwatch, method: Method, path: string, init: { query?: Query; body?: unknown } = {}): Promise<T> {
  return client.http.request<T>({ method, path, ...(init.query ? { query: init.query } : {}), ...(init.body !== undefined ? { body: init.body } : {}) }).then((data) => data);
}

/** A binary GET (an image) with the client's credentials: its bytes and content type. */
export function apiImage(client: Driftwatch, path: string, signal?: AbortSignal): Promise<BinaryBody> {
  return client.http.request<BinaryBody>({ method: "GET", path, responseType: "bytes", ...(signal ? { options: { signal } } : {}) }).then((image) => image);
}

/** A path segment, encoded. */
export const seg = (value: string): string => encodeURIComponent(value);
