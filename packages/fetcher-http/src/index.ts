export { classifyAddress, type BlockedAddressClass } from "./address.js";
export {
  assertSafeUrl,
  createGuardedDispatcher,
  createGuardedLookup,
  defaultLookup,
  parseFetchUrl,
  resolveGuarded,
  type GuardOptions,
  type GuardedDispatcherOptions,
  type LookupAll,
  type ResolvedAddress,
} from "./guard.js";
export { decodeText, readBody } from "./body.js";
export { isFetchError, toFetchError } from "./errors.js";
export {
  createHttpFetcher,
  followRedirects,
  flattenHeaders,
  isCredentialHeader,
  requestHop,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  type HopRequest,
  type HopResponse,
  type HttpFetcherOptions,
  type RedirectingRequest,
} from "./http-fetcher.js";
export {
  createWebhookTransport,
  type GuardedWebhookTransport,
  type WebhookPost,
  type WebhookPostResult,
  type WebhookTransportOptions,
} from "./webhook-transport.js";
