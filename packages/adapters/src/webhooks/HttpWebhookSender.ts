/**
 * The `WebhookSender` port over HTTP(S) (spec 6 "Delivery"). One attempt:
 *
 * 1. parse the endpoint URL (https only unless unsafe mode, no credentials);
 * 2. resolve the host ONCE (IP literals in any spelling are not resolved at all);
 * 3. check every answer with the core's SSRF rules (skipped in unsafe mode);
 * 4. format the body (CloudEvents JSON signed with Standard Webhooks with a fresh timestamp, or the
 *    chat platform's message: Slack, Microsoft Teams or Google Chat) and POST it to the pinned address with the original Host header and TLS name;
 * 5. return the status, the raw `Retry-After` and the duration; the core classifies the answer
 *    (a 3xx is an answer like any other: redirects are never followed).
 *
 * Failures are short codes ("timeout", "network", "dns", "tls", "ssrf-refused"): nothing here
 * logs or returns the URL, the secret or a raw error text.
 *
 * Unsafe mode (`allowUnsafeTargets`) allows plain http and any address, for local testing only;
 * the host turns it on from `IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS=1` and logs the warning.
 *
 * Keep-alive: connections are reused per pinned address, never per host name. The sender keeps
 * one keep-alive agent per (scheme, pinned address, port, TLS server name), so a pooled socket
 * can only carry an attempt to the very address that attempt's own resolution returned and the
 * SSRF check passed, and a TLS session is only reused for the name its certificate was checked
 * for. A host name that resolves elsewhere next time gets another agent; nothing is reused across
 * resolutions to different addresses. Idle sockets close after a second. A new connection costs
 * more CPU than signing and sending the delivery (docs/performance.md, "Webhook delivery").
 *
 * The hot path is plain `Effect.flatMap`s, with the time limit enforced by the transport's timer
 * (one `Effect.timeoutOrElse` only around a host name's resolution): `Effect.fn` and a per-attempt
 * Effect race cost more than the HTTP request.
 */
import { Address, type Attempt, type AttemptResult, InvalidEndpoint, SendFailure, WebhookSender } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as ChatMessage from "./ChatMessage.js"
import * as CloudEvent from "./CloudEvent.js"
import * as Destination from "./Destination.js"
import * as Resolver from "./Resolver.js"
import * as Signing from "./Signing.js"
import * as Transport from "./Transport.js"

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
  /** Reuse connections per pinned address (see above). Default true. */
  readonly keepAlive?: boolean
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
export const render = (attempt: Attempt, timestampSeconds: number): Result.Result<Rendered, UnrenderableAttempt> => {
  const input = { orgId: attempt.orgId, publicUrl: attempt.publicUrl, event: attempt.event }
  if (attempt.type === "chat") {
    // a chat attempt without a platform is a Slack one, as for stored destinations (Webhook.chatPlatformOf)
    const body = ChatMessage.body(attempt.chatPlatform ?? "slack", input)
    return Result.succeed({ body, headers: { "content-type": ChatMessage.CONTENT_TYPE } })
  }
  if (attempt.signingSecret === null) return Result.fail(new UnrenderableAttempt({ reason: "missing-signing-secret" }))
  const secret = attempt.signingSecret
  return CloudEvent.structured(input).pipe(
    Result.mapError(() => new UnrenderableAttempt({ reason: "invalid-cloud-event" })),
    Result.flatMap((message) =>
      Signing.sign({ secret, id: message.id, timestampSeconds, body: message.body }).pipe(
        Result.mapError(() => new UnrenderableAttempt({ reason: "invalid-signing-secret" })),
        Result.map((signature) => ({ body: message.body, headers: { "content-type": message.contentType, ...signature } }))
      )
    )
  )
}

const refused = new SendFailure({ code: "ssrf-refused" })
const timedOut = new SendFailure({ code: "timeout" })

/** Idle pooled sockets are closed after this long. */
const KEEP_ALIVE_IDLE_MS = 1_000
/** Agents kept (one per pinned address); the least recently used is dropped, its idle sockets close on their own. */
const MAX_AGENTS = 256

export const make = (options: Options): typeof WebhookSender.Service => {
  const allowUnsafe = options.allowUnsafeTargets
  const resolve = options.resolver ?? Resolver.system
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024
  const checkTimeout = Duration.millis(options.checkTimeoutMs ?? 5_000)
  const userAgent = options.userAgent ?? "image-policy-webhooks/1"
  const agents = options.keepAlive === false ? undefined : new Map<string, Transport.Agent>()

  /** The keep-alive agent of one pinned address (and where the socket really goes), port and TLS name. */
  const agentFor = (
    secure: boolean,
    pinned: PinnedAddress,
    dial: { readonly address: string; readonly port: number },
    servername: string | undefined
  ) => {
    if (agents === undefined) return undefined
    const key = `${secure ? "https" : "http"}|${pinned.address}|${dial.address}|${dial.port}|${servername ?? ""}`
    let agent = agents.get(key)
    if (agent === undefined) {
      agent = Transport.keepAliveAgent(secure, KEEP_ALIVE_IDLE_MS)
      if (agents.size >= MAX_AGENTS) agents.delete(agents.keys().next().value!)
    } else {
      agents.delete(key)
    }
    agents.set(key, agent)
    return agent
  }

  /** The one resolution of an attempt: none for an IP literal. */
  const addressesOf = <E>(target: Destination.Target, onFailure: () => E) =>
    Option.match(target.literal, {
      onSome: (ip) => Effect.succeed([Address.formatIpAddress(ip)] as ReadonlyArray<string>),
      onNone: () => Effect.mapError(resolve(target.hostname), onFailure)
    })

  /** Check, sign and POST to the pinned address, within what is left of the attempt's time. */
  const sendTo = (
    attempt: Attempt,
    target: Destination.Target,
    answers: ReadonlyArray<string>,
    started: number
  ): Effect.Effect<AttemptResult, SendFailure> => {
    const checked = Destination.checkAddresses(target.hostname, answers, { allowUnsafe })
    if (Result.isFailure(checked)) return Effect.fail(refused)
    const ip = Destination.pick(checked.success)
    const pinned: PinnedAddress = { address: Address.formatIpAddress(ip), family: ip.version, port: target.port }
    const dial = options.connectTo?.(pinned) ?? pinned
    const servername = Option.isSome(target.literal) ? undefined : target.hostname
    // the signature's timestamp is taken now, after resolution, so it is as fresh as it can be
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const left = attempt.timeoutMs - (now - started)
      if (left <= 0) return Effect.fail(timedOut)
      const rendered = render(attempt, Math.floor(now / 1000))
      if (Result.isFailure(rendered)) return Effect.die(rendered.failure)
      return Effect.flatMap(
        Transport.post({
          secure: target.secure,
          address: dial.address,
          family: pinned.family,
          port: dial.port,
          servername,
          hostHeader: target.hostHeader,
          path: target.path,
          headers: { ...rendered.success.headers, "user-agent": userAgent },
          body: Signing.bodyBytes(rendered.success.body),
          ca: options.ca,
          maxResponseBytes,
          drainTimeoutMs: attempt.timeoutMs,
          timeoutMs: left,
          agent: agentFor(target.secure, pinned, dial, servername)
        }),
        (response) =>
          Effect.map(Clock.currentTimeMillis, (finished): AttemptResult => ({
            statusCode: response.statusCode,
            retryAfter: response.retryAfter,
            durationMs: Math.max(0, finished - started)
          }))
      )
    })
  }

  const send = (attempt: Attempt): Effect.Effect<AttemptResult, SendFailure> =>
    Effect.flatMap(Clock.currentTimeMillis, (started) => {
      const target = Destination.parse(attempt.endpointUrl, { allowHttp: allowUnsafe })
      if (Result.isFailure(target)) return Effect.fail(refused)
      return Option.isSome(target.success.literal)
        ? sendTo(attempt, target.success, [Address.formatIpAddress(target.success.literal.value)], started)
        : addressesOf(target.success, () => new SendFailure({ code: "dns" })).pipe(
          Effect.timeoutOrElse({ duration: Duration.millis(attempt.timeoutMs), orElse: () => Effect.fail(timedOut) }),
          Effect.flatMap((answers) => sendTo(attempt, target.success, answers, started))
        )
    }).pipe(Effect.withSpan("WebhookSender.send", undefined, { captureStackTrace: false }))

  const checkEndpoint = Effect.fn("WebhookSender.checkEndpoint")(function*(url: string) {
    const target = yield* Effect.fromResult(Destination.parse(url, { allowHttp: allowUnsafe }))
    // unsafe mode: a local test receiver may not even be listening yet
    if (allowUnsafe) return
    const unresolvable = () => new InvalidEndpoint({ path: "endpointUrl", reason: "unresolvable" })
    const answers = yield* addressesOf(target, unresolvable).pipe(
      Effect.timeoutOrElse({ duration: checkTimeout, orElse: () => Effect.fail(unresolvable()) })
    )
    yield* Effect.fromResult(Destination.checkAddresses(target.hostname, answers, { allowUnsafe }))
  })

  return WebhookSender.of({ send, checkEndpoint })
}

export const layer = (options: Options): Layer.Layer<WebhookSender> => Layer.succeed(WebhookSender, make(options))
