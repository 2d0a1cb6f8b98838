/**
 * What a code-hosting provider can answer instead of a result (the `VcsProvider` port's errors).
 * Domain rules read them (`ConnectionHealth`, `Scan.failureOf`, `Remediation.failureKind`), so they
 * live here, beside no port: a port imports the domain, never the reverse.
 */
import * as Schema from "effect/Schema"

/**
 * Why a provider could not answer. `retryAfterSeconds` is set when the provider asked us to slow
 * down (answered as 429 with `Retry-After`). Never carries a token or the provider's raw text.
 */
export class VcsProviderError extends Schema.TaggedError<VcsProviderError>()("VcsProviderError", {
  reason: Schema.Literals(["not-configured", "unauthorized", "not-found", "rate-limited", "unavailable"]),
  retryAfterSeconds: Schema.optionalKey(Schema.Number)
}) {
  override get message() {
    switch (this.reason) {
      case "not-configured":
        return "this connection has no provider adapter configured in this deployment"
      case "unauthorized":
        return "the provider rejected the connection's credentials"
      case "not-found":
        return "the provider does not know this repository"
      case "rate-limited":
        return "the provider asked us to slow down; retry later"
      case "unavailable":
        return "the provider could not be reached"
    }
  }
}

/**
 * A write the provider refused for its content or access (remediation only): `conflict` when the
 * branch or file changed since it was read, `forbidden` when the token may not write, `invalid`
 * for any other refusal. Carries the HTTP status, never the provider's text.
 */
export class VcsWriteRejected extends Schema.TaggedError<VcsWriteRejected>()("VcsWriteRejected", {
  reason: Schema.Literals(["conflict", "forbidden", "invalid"]),
  status: Schema.Number
}) {
  override get message() {
    return `the provider refused the write (${this.reason}, HTTP ${this.status})`
  }
}
