/**
 * The `WebhookSender` port over HTTP(S) (spec 6 "Delivery"). One attempt:
 *
 * 1. parse the endpoint URL (https only unless unsafe mode, no credentials);
 * 2. resolve the host ONCE (IP literals in any spelling are not resolved at all);
 * 3. check every answer with the core's SSRF rules (skipped in unsafe mode);
 * 4. format the body (CloudEvents JSON signed with Standard Webhooks with a fresh timestamp, or a
 *    Slack message) and POST it to the pinned address with the original Host header and TLS name;
 * 5. return the status, the raw `Retry-After` and the duration; the core classifies the answer
 *    (a 3xx is an answer like any other: redirects are never followed).
 *
 * Failures are short codes ("timeout", "network", "dns", "tls", "ssrf-refused"): nothing here
 * logs or returns the URL, the secret or a raw error text.
 *
 * Unsafe mode (`allowUnsafeTargets`) allows plain http and any address, for local testing only;
 * the host turns it on from `IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS=1` and logs the warning.
 */
import { Address, type Attempt, type AttemptResult, InvalidEndpoint, SendFailure, WebhookSender } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ChatMessage from "./ChatMessage.js"
import * as CloudEvent from "./CloudEvent.js"
import * as Destination from "./Destination.js"
import * as Resolver from "./Resolver.js"
import * as Signing from "./Signing.js"
import * as Transport from "./Transport.js"

export { WebhookSender }

/** The checked address an attempt connects to, and the URL's port. */
export interface PinnedAddress {
  readonly address: string
  readonly family: 4 | 6
  readonly port: number
}

export interface Options {
  /** Plain http and non-public addresses allowed: local testing only. */
  readonly allowUnsafeTargets: boolean
  /** Default: `Resolver.system` (node:dns lookup, all answers). */
  readonly resolver?: Resolver.Resolver
  /** Extra trusted CA certificates (PEM), e.g. a test CA. */
  readonly ca?: string | ReadonlyArray<string>
  /**
   * Test hook: where the socket for a pinned address really goes (e.g. a fake public address
   * mapped to a local test server). It sees the address that passed the check; production code
   * leaves it unset.
   */
  readonly connectTo?: (pinned: PinnedAddress) => { readonly address: string; readonly port: number }
  /** Response bytes read (and discarded) before the connection is closed. Default 64 KiB. */
  readonly maxResponseBytes?: number
  /** Time limit of `checkEndpoint`'s resolution. Default 5 s. */
  readonly checkTimeoutMs?: number
  /** Default `image-policy-webhooks/1`. */
  readonly userAgent?: string
}

export interface Rendered {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

/**
 * A delivery that cannot be formatted is a bug upstream (the outbox or the secret store), not an
 * answer of the receiver: `send` turns it into a defect. Carries no secret and no event data.
 */
export class UnrenderableAttempt extends Data.TaggedError("UnrenderableAttempt")<{
  readonly reason: "missing-signing-secret" | "invalid-signing-secret" | "invalid-cloud-event"
}> {
  override get message() {
    return `webhook attempt cannot be formatted: ${this.reason}`
  }
}

/**
 * The exact body and headers of one attempt (content type and, for generic destinations, the
 * Standard Webhooks headers signed at `timestampSeconds`). The body depends only on the event,
 * so every attempt of one event sends the same bytes with a fresh timestamp and signature.
 */
export const render = (attempt: Attempt, timestampSeconds: number): Either.Either<Rendered, UnrenderableAttempt> => {
  const input = { orgId: attempt.orgId, publicUrl: attempt.publicUrl, event: attempt.event }
  if (attempt.type === "chat") {
    return Either.right({ body: ChatMessage.body(input), headers: { "content-type": ChatMessage.CONTENT_TYPE } })
  }
  if (attempt.signingSecret === null) return Either.left(new UnrenderableAttempt({ reason: "missing-signing-secret" }))
  const secret = attempt.signingSecret
  return CloudEvent.structured(input).pipe(
    Either.mapLeft(() => new UnrenderableAttempt({ reason: "invalid-cloud-event" })),
    Either.flatMap((message) =>
      Signing.sign({ secret, id: message.id, timestampSeconds, body: message.body }).pipe(
        Either.mapLeft(() => new UnrenderableAttempt({ reason: "invalid-signing-secret" })),
        Either.map((signature) => ({ body: message.body, headers: { "content-type": message.contentType, ...signature } }))
      )
    )
  )
}

const refused = new SendFailure({ code: "ssrf-refused" })

export const make = (options: Options): typeof WebhookSender.Service => {
  const allowUnsafe = options.allowUnsafeTargets
  const resolve = options.resolver ?? Resolver.system
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024
  const checkTimeout = Duration.millis(options.checkTimeoutMs ?? 5_000)
  const userAgent = options.userAgent ?? "image-policy-webhooks/1"

  /** The one resolution of an attempt: none for an IP literal. */
  const addressesOf = <E>(target: Destination.Target, onFailure: () => E) =>
    Option.match(target.literal, {
      onSome: (ip) => Effect.succeed([Address.formatIpAddress(ip)] as ReadonlyArray<string>),
      onNone: () => Effect.mapError(resolve(target.hostname), onFailure)
    })

  const send = Effect.fn("WebhookSender.send")(function*(attempt: Attempt) {
    const started = yield* Clock.currentTimeMillis
    const target = yield* Either.mapLeft(Destination.parse(attempt.endpointUrl, { allowHttp: allowUnsafe }), () => refused)
    const answers = yield* addressesOf(target, () => new SendFailure({ code: "dns" }))
    const checked = yield* Either.mapLeft(Destination.checkAddresses(target.hostname, answers, { allowUnsafe }), () => refused)
    const ip = Destination.pick(checked)
    const pinned: PinnedAddress = { address: Address.formatIpAddress(ip), family: ip.version, port: target.port }
    const dial = options.connectTo?.(pinned) ?? pinned

    // the signature's timestamp is taken now, after resolution, so it is as fresh as it can be
    const now = yield* Clock.currentTimeMillis
    const rendered = yield* Effect.orDie(render(attempt, Math.floor(now / 1000)))
    const response = yield* Transport.post({
      secure: target.secure,
      address: dial.address,
      family: pinned.family,
      port: dial.port,
      servername: Option.isSome(target.literal) ? undefined : target.hostname,
      hostHeader: target.hostHeader,
      path: target.path,
      headers: { ...rendered.headers, "user-agent": userAgent },
      body: Signing.bodyBytes(rendered.body),
      ca: options.ca,
      maxResponseBytes,
      drainTimeoutMs: attempt.timeoutMs
    })
    const finished = yield* Clock.currentTimeMillis
    return { statusCode: response.statusCode, retryAfter: response.retryAfter, durationMs: Math.max(0, finished - started) } satisfies AttemptResult
  }, (effect, attempt) =>
    Effect.timeoutFail(effect, {
      duration: Duration.millis(attempt.timeoutMs),
      onTimeout: () => new SendFailure({ code: "timeout" })
    }))

  const checkEndpoint = Effect.fn("WebhookSender.checkEndpoint")(function*(url: string) {
    const target = yield* Destination.parse(url, { allowHttp: allowUnsafe })
    // unsafe mode: a local test receiver may not even be listening yet
    if (allowUnsafe) return
    const unresolvable = () => new InvalidEndpoint({ path: "endpointUrl", reason: "unresolvable" })
    const answers = yield* addressesOf(target, unresolvable).pipe(
      Effect.timeoutFail({ duration: checkTimeout, onTimeout: unresolvable })
    )
    yield* Destination.checkAddresses(target.hostname, answers, { allowUnsafe })
  })

  return WebhookSender.of({ send, checkEndpoint })
}

export const layer = (options: Options): Layer.Layer<WebhookSender> => Layer.succeed(WebhookSender, make(options))
