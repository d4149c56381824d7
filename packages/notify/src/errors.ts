import { DriftwatchError, type DriftwatchErrorDetail } from "@driftwatch/core";

/**
 * Codes of the errors this package throws. `invalid_channel_url` and `invalid_template` are a
 * user's input (the server answers 422 naming the problem); the messages never contain a secret.
 */
export type NotifyErrorCode =
  | "invalid_channel_url"
  | "unsupported_channel"
  | "invalid_template"
  | "invalid_notification"
  | "invalid_options"
  | "unsupported_event";

export class NotifyError extends DriftwatchError<NotifyErrorCode> {
  override readonly name = "NotifyError";
  /** The channel's service (`slack`, `discord`, ...) when one is known. */
  readonly service: string | undefined;

  constructor(code: NotifyErrorCode, message: string, options: { cause?: unknown; details?: DriftwatchErrorDetail[]; service?: string } = {}) {
    super(code, message, options);
    this.service = options.service;
  }
}

/** True for a `NotifyError`, even one thrown by another copy of this package. */
export function isNotifyError(error: unknown): error is NotifyError {
  return error instanceof Error && error.name === "NotifyError" && typeof (error as { code?: unknown }).code === "string";
}

/** A parse error of a channel URL; `part` names where (`host`, `token`, `query.priority`, ...). */
export function invalidUrl(service: string, part: string, message: string): NotifyError {
  return new NotifyError("invalid_channel_url", `${service}: ${message}`, { service, details: [{ path: part, message }] });
}
