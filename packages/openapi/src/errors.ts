/** Machine-readable reasons an OpenAPI document cannot be read or diffed. */
export type OpenApiErrorCode =
  | "invalid_document" // not JSON/YAML, or not an object
  | "unsupported_version" // neither OpenAPI 3.0 nor 3.1
  | "swagger_2_unsupported" // Swagger 2.0: convert it to OpenAPI 3 first
  | "too_large" // a document, or all of them together, exceed the byte limit
  | "too_many_documents" // external $refs reach more documents than allowed
  | "too_deep" // nesting or $ref chains exceed the depth limit
  | "too_complex" // a document has more values (or YAML nodes), or a diff takes more steps, than allowed
  | "unresolved_ref" // a $ref points nowhere
  | "external_ref_refused" // a $ref to another document, and no loader was given
  | "load_failed"; // the loader could not read a document

/** The error every function of @driftwatch/openapi throws for bad input. */
export class OpenApiError extends Error {
  override readonly name = "OpenApiError";
  readonly code: OpenApiErrorCode;

  constructor(code: OpenApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for an OpenApiError, also when two copies of this package are installed. */
export function isOpenApiError(error: unknown): error is OpenApiError {
  return (
    error instanceof OpenApiError ||
    (error instanceof Error && error.name === "OpenApiError" && typeof (error as { code?: unknown }).code === "string")
  );
}
