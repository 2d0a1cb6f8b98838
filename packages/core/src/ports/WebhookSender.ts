import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { UnsafeDestination } from "../Address.js"
import type { OutboxEvent } from "../Outbox.js"
import type { ChatPlatform, WebhookType } from "../Webhook.js"

/**
 * Why an attempt got no HTTP answer. A short code for delivery records, never a raw error text
 * (which could quote the endpoint URL).
 */
export class SendFailure extends Schema.TaggedError<SendFailure>()("SendFailure", {
  code: Schema.Literals(["timeout", "network", "dns", "tls", "ssrf-refused", "redirect-refused"])
}) {
  override get message() {
    return `webhook delivery failed: ${this.code}`
  }
}

/** The endpoint URL is not acceptable as a webhook destination (checked at creation and replacement). */
export class InvalidEndpoint extends Schema.TaggedError<InvalidEndpoint>()("InvalidEndpoint", {
  path: Schema.Literal("endpointUrl"),
  reason: Schema.Literals(["not-https", "malformed", "credentials", "unsafe-destination", "unresolvable"])
}) {
  override get message() {
    switch (this.reason) {
      case "not-https":
        return "the endpoint must be an https:// URL"
      case "malformed":
        return "the endpoint is not a valid absolute URL"
      case "credentials":
        return "the endpoint must not carry a user name or password"
      case "unsafe-destination":
        return "the endpoint resolves to a loopback, private, link-local, reserved or mixed address"
      case "unresolvable":
        return "the endpoint's host name does not resolve"
    }
  }
}

export interface Attempt {
  readonly type: WebhookType
  /** The chat message format (`Webhook.chatPlatformOf`); null for generic destinations. */
  readonly chatPlatform: ChatPlatform | null
  /** The opened endpoint URL: only the sender ever sees it in clear. */
  readonly endpointUrl: string
  /** `whsec_…` for generic destinations; null for chat. */
  readonly signingSecret: string | null
  readonly orgId: string
  readonly event: OutboxEvent
  /** Base URL for the CloudEvent `dataschema` and the chat message's Open link. */
  readonly publicUrl: string
  readonly timeoutMs: number
}

export interface AttemptResult {
  readonly statusCode: number
  /** The raw `Retry-After` header, when the receiver sent one. */
  readonly retryAfter: string | undefined
  readonly durationMs: number
}

/**
 * Delivers one attempt of one event to one destination: formats it (CloudEvents JSON, signed with
 * Standard Webhooks, or a Slack, Teams or Google Chat message), resolves the host once, refuses unsafe addresses, and
 * connects to the pinned address without following redirects.
 */
export class WebhookSender extends Context.Service<WebhookSender, {
  readonly send: (attempt: Attempt) => Effect.Effect<AttemptResult, SendFailure>
  /** Syntax, scheme and SSRF checks of an endpoint URL before it is stored. */
  readonly checkEndpoint: (url: string) => Effect.Effect<void, InvalidEndpoint | UnsafeDestination>
}>()("@image-policy/core/WebhookSender") {}
