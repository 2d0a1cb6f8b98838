/**
 * Deliveries end to end against a local receiver that verifies like a careful integrator
 * (test/support/receiver.ts): signatures with standardwebhooks and svix on the raw body, stale
 * timestamps, deduplication by webhook-id, the CloudEvents envelope. Plain-http targets on
 * 127.0.0.1 use unsafe mode; the TLS cases use safe mode with a test CA and the connect hook.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Attempt, type SendFailure } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/testing/TestClock"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { Webhook as SvixWebhook } from "svix"
import * as HttpWebhookSender from "../src/webhooks/HttpWebhookSender.js"
import * as Resolver from "../src/webhooks/Resolver.js"
import * as Signing from "../src/webhooks/Signing.js"
import { closedPort, receiver, sampleEvent, testCertificate } from "./support/receiver.js"

const secret = Signing.generateSigningSecret(new Uint8Array(32).map((_, i) => 255 - i))
const rotated = Signing.generateSigningSecret(new Uint8Array(48).map((_, i) => i))

const attemptFor = (endpointUrl: string, overrides: Partial<Attempt> = {}): Attempt => ({
  type: "generic",
  chatPlatform: null,
  endpointUrl,
  signingSecret: secret,
  orgId: "org_demo",
  event: sampleEvent(),
  publicUrl: "https://policy.example.com",
  timeoutMs: 5_000,
  ...overrides
})

const unsafeSender = HttpWebhookSender.make({ allowUnsafeTargets: true })

describe("generic deliveries", () => {
  it.live("a delivery verifies with both verifiers and carries the contracted envelope", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret })
      const result = yield* unsafeSender.send(attemptFor(target.url()))
      assert.strictEqual(result.statusCode, 200)
      assert.strictEqual(result.retryAfter, undefined)
      assert.isAtLeast(result.durationMs, 0)
      assert.deepStrictEqual(target.rejections, [])
      assert.strictEqual(target.deliveries.length, 1)

      const delivery = target.deliveries[0]!
      const request = target.requests[0]!
      assert.strictEqual(request.method, "POST")
      assert.strictEqual(request.path, "/hook")
      assert.strictEqual(request.headers["content-type"], "application/cloudevents+json; charset=utf-8")
      assert.strictEqual(request.headers["content-length"], String(Buffer.byteLength(request.rawBody)))
      assert.match(String(request.headers["user-agent"]), /^image-policy-webhooks\//)
      assert.match(delivery.signature, /^v1,[A-Za-z0-9+/]+={0,2}$/)
      assert.strictEqual(delivery.id, sampleEvent().id)
      const now = Math.floor(Date.now() / 1000)
      assert.isAtMost(Math.abs(now - delivery.timestamp), 5)

      const event = delivery.event
      assert.strictEqual(event.specversion, "1.0")
      assert.strictEqual(event.id, sampleEvent().id)
      assert.strictEqual(event.source, "/api/v1/org/org_demo")
      assert.strictEqual(event.type, "service.snooze_request.created")
      assert.strictEqual(event.subject, sampleEvent().subject)
      assert.strictEqual(event.datacontenttype, "application/json")
      assert.strictEqual(event.dataschema, "https://policy.example.com/api/v1/event-types/service.snooze_request.created")
      assert.strictEqual(event["orgid"], "org_demo")
      assert.strictEqual(event["correlationid"], sampleEvent().correlationId)
      assert.strictEqual(event["schemaversion"], "1")
      assert.deepStrictEqual(event.data, sampleEvent().data)
    }))

  it.live("non-ASCII text is signed over the exact bytes sent", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret })
      const event = sampleEvent({ correlationId: "req_ünïcødé_✓_🚀" })
      assert.strictEqual((yield* unsafeSender.send(attemptFor(target.url(), { event }))).statusCode, 200)
      assert.deepStrictEqual(target.rejections, [])
      assert.strictEqual(target.deliveries[0]!.event["correlationid"], "req_ünïcødé_✓_🚀")
    }))

  it.effect("a second attempt keeps id and body, gets a fresh timestamp and signature, and is deduplicated", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret })
      yield* TestClock.setTime(Date.now())
      assert.strictEqual((yield* unsafeSender.send(attemptFor(target.url()))).statusCode, 200)
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual((yield* unsafeSender.send(attemptFor(target.url()))).statusCode, 200)

      assert.strictEqual(target.deliveries.length, 1)
      assert.strictEqual(target.duplicates.length, 1)
      const [first, second] = [target.deliveries[0]!, target.duplicates[0]!]
      assert.strictEqual(second.id, first.id)
      assert.strictEqual(second.rawBody, first.rawBody)
      assert.strictEqual(second.timestamp - first.timestamp, 30)
      assert.notStrictEqual(second.signature, first.signature)
    }))

  it.effect("a stale timestamp is rejected by the receiver", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret, toleranceSeconds: 300 })
      yield* TestClock.setTime(Date.now() - 10 * 60 * 1000)
      const result = yield* unsafeSender.send(attemptFor(target.url()))
      assert.strictEqual(result.statusCode, 400)
      assert.deepStrictEqual(target.rejections, ["stale"])
      // and the libraries agree on their own
      const request = target.requests[0]!
      const headers = {
        "webhook-id": String(request.headers["webhook-id"]),
        "webhook-timestamp": String(request.headers["webhook-timestamp"]),
        "webhook-signature": String(request.headers["webhook-signature"])
      }
      assert.throws(() => new StandardWebhook(secret).verify(request.rawBody, headers), /too old/)
      assert.throws(() => new SvixWebhook(secret).verify(request.rawBody, headers), /too old/)
    }))

  it.live("after rotation, the old secret no longer verifies and the new one does", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret })
      const result = yield* unsafeSender.send(attemptFor(target.url(), { signingSecret: rotated }))
      assert.strictEqual(result.statusCode, 401)
      assert.deepStrictEqual(target.rejections, ["signature-standardwebhooks"])
      const request = target.requests[0]!
      const headers = {
        "webhook-id": String(request.headers["webhook-id"]),
        "webhook-timestamp": String(request.headers["webhook-timestamp"]),
        "webhook-signature": String(request.headers["webhook-signature"])
      }
      assert.throws(() => new StandardWebhook(secret).verify(request.rawBody, headers), /No matching signature/)
      assert.throws(() => new SvixWebhook(secret).verify(request.rawBody, headers))
      assert.doesNotThrow(() => new SvixWebhook(rotated).verify(request.rawBody, headers))

      target.setSecret(rotated)
      assert.strictEqual((yield* unsafeSender.send(attemptFor(target.url(), { signingSecret: rotated }))).statusCode, 200)
      assert.strictEqual(target.deliveries.length, 1)
    }))
})

describe("answers", () => {
  it.live("status codes and Retry-After come back as sent", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret })
      const httpDate = "Wed, 21 Oct 2037 07:28:00 GMT"
      const answers: ReadonlyArray<readonly [number, string | undefined]> = [
        [503, "120"],
        [429, httpDate],
        [429, undefined],
        [410, undefined],
        [500, "not a date"],
        [204, undefined],
        [200, undefined]
      ]
      for (const [index, [status, retryAfter]] of answers.entries()) {
        target.setResponder(() => ({ status, headers: retryAfter === undefined ? {} : { "retry-after": retryAfter } }))
        // a new event each time: the receiver would acknowledge a repeated id without asking the responder
        const event = sampleEvent({ id: `evt_answer${index}` as Attempt["event"]["id"] })
        const result = yield* unsafeSender.send(attemptFor(target.url(), { event }))
        assert.strictEqual(result.statusCode, status)
        assert.strictEqual(result.retryAfter, retryAfter)
      }
      assert.strictEqual(target.deliveries.length, answers.length)
    }))

  it.live("a redirect is returned as the answer and never followed", () =>
    Effect.gen(function*() {
      const elsewhere = yield* receiver({ mode: "plain" })
      const target = yield* receiver({
        mode: "generic",
        secret,
        respond: () => ({ status: 302, headers: { location: elsewhere.url("/stolen") } })
      })
      const result = yield* unsafeSender.send(attemptFor(target.url()))
      assert.strictEqual(result.statusCode, 302)
      assert.strictEqual(elsewhere.connections(), 0)
      assert.strictEqual(target.requests.length, 1)
    }))

  it.live("a large response body is drained up to the cap and does not delay the answer", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "plain", respond: () => ({ status: 200, body: "x".repeat(4 * 1024 * 1024) }) })
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: true, maxResponseBytes: 1024 })
      const result = yield* sender.send(attemptFor(target.url(), { type: "chat", chatPlatform: "slack", signingSecret: null }))
      assert.strictEqual(result.statusCode, 200)
    }))
})

describe("failures", () => {
  it.live("a receiver that never answers times out", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret, respond: () => "hang" })
      const error = yield* Effect.flip(unsafeSender.send(attemptFor(target.url(), { timeoutMs: 300 })))
      assert.strictEqual(error.code, "timeout")
      assert.strictEqual(target.requests.length, 1)
    }))

  it.live("a closed port is a network failure", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(closedPort)
      const error = yield* Effect.flip(unsafeSender.send(attemptFor(`http://127.0.0.1:${port}/hook`)))
      assert.strictEqual(error.code, "network")
    }))

  it.live("a name that does not resolve is a dns failure", () =>
    Effect.gen(function*() {
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: true, resolver: Resolver.fromRecord({}) })
      const error = yield* Effect.flip(sender.send(attemptFor("http://nowhere.example.test/hook")))
      assert.strictEqual(error.code, "dns")
    }))

  it.live("a resolver that never answers: checkEndpoint says unresolvable, send times out", () =>
    Effect.gen(function*() {
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: false, resolver: () => Effect.never, checkTimeoutMs: 50 })
      const checked = yield* Effect.flip(sender.checkEndpoint("https://slow.example.test/"))
      assert.strictEqual(checked._tag === "InvalidEndpoint" ? checked.reason : checked._tag, "unresolvable")
      const error = yield* Effect.flip(sender.send(attemptFor("https://slow.example.test/", { timeoutMs: 100 })))
      assert.strictEqual(error.code, "timeout")
    }))

  it.live("the system resolver reports an unresolvable name as a dns failure", () =>
    Effect.gen(function*() {
      // `.invalid` is reserved never to resolve (RFC 6761)
      const error = yield* Effect.flip(unsafeSender.send(attemptFor("http://hooks.image-policy.invalid/hook")))
      assert.strictEqual(error.code, "dns")
    }))
})

describe("TLS (safe mode, pinned through the connect hook)", () => {
  const PUBLIC = "93.184.215.14"
  const certificate = testCertificate(["hooks.example.test"])
  const otherCertificate = testCertificate(["someone-else.example.test"])
  const resolver = Resolver.fromRecord({ "hooks.example.test": [PUBLIC] })
  // `ca: null`: trust only the system roots
  const safeSender = (port: number, ca: string | null = certificate.cert) =>
    HttpWebhookSender.make({
      allowUnsafeTargets: false,
      resolver,
      ...(ca === null ? {} : { ca }),
      connectTo: () => ({ address: "127.0.0.1", port })
    })

  it.live("delivers over https with SNI and Host of the URL's name", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret, tls: certificate })
      const result = yield* safeSender(target.port).send(attemptFor("https://hooks.example.test/hook?tenant=1"))
      assert.strictEqual(result.statusCode, 200)
      assert.strictEqual(target.deliveries.length, 1)
      assert.strictEqual(target.requests[0]!.headers.host, "hooks.example.test")
      assert.strictEqual(target.requests[0]!.path, "/hook?tenant=1")
    }))

  it.live("a certificate for another name is a tls failure", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret, tls: otherCertificate })
      const error = yield* Effect.flip(safeSender(target.port, otherCertificate.cert).send(attemptFor("https://hooks.example.test/hook")))
      assert.strictEqual(error.code, "tls")
      assert.strictEqual(target.requests.length, 0)
    }))

  it.live("an untrusted certificate is a tls failure", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret, tls: certificate })
      const error = yield* Effect.flip(safeSender(target.port, null).send(attemptFor("https://hooks.example.test/hook")))
      assert.strictEqual(error.code, "tls")
    }))

  it.live("a peer that does not speak TLS is a tls failure", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "plain" })
      const error = yield* Effect.flip(safeSender(target.port).send(attemptFor("https://hooks.example.test/hook")))
      assert.strictEqual(error.code, "tls")
    }))
})

describe("chat deliveries", () => {
  const openUrl = "https://policy.example.com/console/org/org_demo/snooze-requests/snz_0123456789abcdefghjkmnpqrs"
  // Slack Block Kit, as far as this message uses it (limits from Slack's block reference)
  const PlainText = Schema.Struct({
    type: Schema.Literal("plain_text"),
    text: Schema.String.check(Schema.isMinLength(1)),
    emoji: Schema.optionalKey(Schema.Boolean)
  })
  const Mrkdwn = Schema.Struct({
    type: Schema.Literal("mrkdwn"),
    text: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(3000))
  })
  const Url = Schema.String.check(Schema.isMaxLength(3000), Schema.isPattern(/^https?:\/\/\S+$/))
  const Block = Schema.Union([
    Schema.Struct({ type: Schema.Literal("header"), text: PlainText.check(Schema.makeFilter((t) => t.text.length <= 150)) }),
    Schema.Struct({
      type: Schema.Literal("section"),
      text: Schema.optionalKey(Mrkdwn),
      fields: Schema.optionalKey(Schema.Array(Mrkdwn.check(Schema.makeFilter((f) => f.text.length <= 2000))).check(Schema.isMaxLength(10)))
    }),
    Schema.Struct({
      type: Schema.Literal("actions"),
      elements: Schema.Array(Schema.Struct({
        type: Schema.Literal("button"),
        text: PlainText.check(Schema.makeFilter((t) => t.text.length <= 75)),
        url: Url,
        action_id: Schema.String.check(Schema.isMaxLength(255))
      })).check(Schema.isMinLength(1), Schema.isMaxLength(25))
    }),
    Schema.Struct({ type: Schema.Literal("context"), elements: Schema.Array(Mrkdwn).check(Schema.isMinLength(1), Schema.isMaxLength(10)) })
  ])
  const SlackMessage = Schema.Struct({
    text: Schema.String.check(Schema.isMinLength(1)),
    blocks: Schema.Array(Block).check(Schema.isMaxLength(50))
  })

  it.live("sends valid Slack blocks JSON with an Open link, unsigned", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "plain" })
      const result = yield* unsafeSender.send(attemptFor(target.url(), { type: "chat", chatPlatform: "slack", signingSecret: null }))
      assert.strictEqual(result.statusCode, 200)
      const request = target.requests[0]!
      assert.strictEqual(request.headers["content-type"], "application/json; charset=utf-8")
      assert.isUndefined(request.headers["webhook-signature"])
      const message = Schema.decodeUnknownSync(SlackMessage, { onExcessProperty: "error" })(JSON.parse(request.rawBody))
      const actions = message.blocks.find((b) => b.type === "actions")
      assert.isDefined(actions)
      if (actions?.type === "actions") {
        assert.strictEqual(actions.elements[0]!.text.text, "Open")
        assert.strictEqual(actions.elements[0]!.url, openUrl)
      }
      assert.include(message.text, "|Open>")
      assert.notInclude(request.rawBody, target.url())
    }))

  // the parts of an Adaptive Card this message uses (adaptivecards.io schema; Teams wraps it in a message activity)
  const TeamsMessage = Schema.Struct({
    type: Schema.Literal("message"),
    attachments: Schema.Tuple([Schema.Struct({
      contentType: Schema.Literal("application/vnd.microsoft.card.adaptive"),
      contentUrl: Schema.Null,
      content: Schema.Struct({
        $schema: Schema.Literal("http://adaptivecards.io/schemas/adaptive-card.json"),
        type: Schema.Literal("AdaptiveCard"),
        version: Schema.String.check(Schema.isPattern(/^1\.[0-5]$/)),
        body: Schema.Array(Schema.Union([
          Schema.Struct({
            type: Schema.Literal("TextBlock"),
            text: Schema.String.check(Schema.isMinLength(1)),
            wrap: Schema.Boolean,
            size: Schema.optionalKey(Schema.Literals(["Small", "Medium", "Large"])),
            weight: Schema.optionalKey(Schema.Literal("Bolder")),
            isSubtle: Schema.optionalKey(Schema.Boolean)
          }),
          Schema.Struct({
            type: Schema.Literal("FactSet"),
            facts: Schema.Array(Schema.Struct({ title: Schema.String.check(Schema.isMinLength(1)), value: Schema.String }))
          })
        ])),
        actions: Schema.Tuple([Schema.Struct({ type: Schema.Literal("Action.OpenUrl"), title: Schema.Literal("Open"), url: Url })])
      })
    })])
  })

  // Google Chat's cardsV2 (Card v1 of the Chat API), as far as this message uses it
  const GoogleChatMessage = Schema.Struct({
    cardsV2: Schema.Tuple([Schema.Struct({
      cardId: Schema.String.check(Schema.isMinLength(1)),
      card: Schema.Struct({
        header: Schema.Struct({ title: Schema.String.check(Schema.isMinLength(1)), subtitle: Schema.String }),
        sections: Schema.Tuple([Schema.Struct({
          widgets: Schema.Array(Schema.Union([
            Schema.Struct({ decoratedText: Schema.Struct({ topLabel: Schema.String, text: Schema.String, wrapText: Schema.Boolean }) }),
            Schema.Struct({
              buttonList: Schema.Struct({
                buttons: Schema.Tuple([
                  Schema.Struct({ text: Schema.Literal("Open"), onClick: Schema.Struct({ openLink: Schema.Struct({ url: Url }) }) })
                ])
              })
            })
          ])).check(Schema.isMaxLength(100))
        })])
      })
    })])
  })

  it.live("sends a Microsoft Teams Adaptive Card message with an Open action, unsigned", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "plain", respond: () => ({ status: 202 }) })
      const result = yield* unsafeSender.send(
        attemptFor(target.url("/workflows/abc"), { type: "chat", chatPlatform: "teams", signingSecret: null })
      )
      assert.strictEqual(result.statusCode, 202)
      const request = target.requests[0]!
      assert.strictEqual(request.path, "/workflows/abc")
      assert.strictEqual(request.headers["content-type"], "application/json; charset=utf-8")
      assert.isUndefined(request.headers["webhook-signature"])
      const message = Schema.decodeUnknownSync(TeamsMessage, { onExcessProperty: "error" })(JSON.parse(request.rawBody))
      assert.strictEqual(message.attachments[0].content.actions[0].url, openUrl)
      assert.notInclude(request.rawBody, target.url("/workflows/abc"))
    }))

  it.live("sends a Google Chat cardsV2 message with an Open button, unsigned", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "plain" })
      const result = yield* unsafeSender.send(
        attemptFor(target.url("/v1/spaces/AAA/messages?key=k&token=t"), { type: "chat", chatPlatform: "google-chat", signingSecret: null })
      )
      assert.strictEqual(result.statusCode, 200)
      const request = target.requests[0]!
      assert.strictEqual(request.path, "/v1/spaces/AAA/messages?key=k&token=t")
      assert.strictEqual(request.headers["content-type"], "application/json; charset=utf-8")
      assert.isUndefined(request.headers["webhook-signature"])
      const message = Schema.decodeUnknownSync(GoogleChatMessage, { onExcessProperty: "error" })(JSON.parse(request.rawBody))
      const button = message.cardsV2[0].card.sections[0].widgets.at(-1)
      assert.deepStrictEqual(button, { buttonList: { buttons: [{ text: "Open", onClick: { openLink: { url: openUrl } } }] } })
      assert.notInclude(request.rawBody, "token=t")
    }))

  it.live("every attempt of one event sends the same bytes, on every platform", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "plain" })
      for (const chatPlatform of ["slack", "teams", "google-chat"] as const) {
        const attempt = attemptFor(target.url(`/${chatPlatform}`), { type: "chat", chatPlatform, signingSecret: null })
        yield* unsafeSender.send(attempt)
        yield* unsafeSender.send(attempt)
      }
      const bodies = target.requests.map((r) => r.rawBody)
      assert.strictEqual(bodies.length, 6)
      assert.strictEqual(bodies[0], bodies[1])
      assert.strictEqual(bodies[2], bodies[3])
      assert.strictEqual(bodies[4], bodies[5])
      assert.strictEqual(new Set(bodies).size, 3)
    }))
})

describe("nothing leaks", () => {
  it.live("no SendFailure carries the URL, the host, the secret or a raw error text", () =>
    Effect.gen(function*() {
      const hanging = yield* receiver({ mode: "generic", secret, respond: () => "hang" })
      const plain = yield* receiver({ mode: "plain" })
      const port = yield* Effect.promise(closedPort)
      const secretive = "https://hooks.example.test/hook?token=sekret-token-123"
      const safe = HttpWebhookSender.make({
        allowUnsafeTargets: false,
        resolver: Resolver.fromRecord({ "hooks.example.test": ["93.184.215.14"], "leaky.example.test": ["10.1.2.3"] }),
        connectTo: () => ({ address: "127.0.0.1", port: plain.port })
      })
      const failures: Array<readonly [string, SendFailure]> = []
      const collect = (url: string, effect: Effect.Effect<unknown, SendFailure>) =>
        Effect.flatMap(Effect.flip(effect), (error) => Effect.sync(() => failures.push([url, error])))

      const timeoutUrl = hanging.url("/hook?token=sekret-token-123")
      yield* collect(timeoutUrl, unsafeSender.send(attemptFor(timeoutUrl, { timeoutMs: 200 })))
      const closedUrl = `http://127.0.0.1:${port}/hook?token=sekret-token-123`
      yield* collect(closedUrl, unsafeSender.send(attemptFor(closedUrl)))
      yield* collect(secretive, safe.send(attemptFor(secretive))) // tls: plain http peer
      const refusedUrl = "https://leaky.example.test/hook?token=sekret-token-123"
      yield* collect(refusedUrl, safe.send(attemptFor(refusedUrl)))
      const credentialsUrl = "https://user:sekret-token-123@hooks.example.test/"
      yield* collect(credentialsUrl, safe.send(attemptFor(credentialsUrl)))
      const dnsUrl = "https://nowhere.example.test/?token=sekret-token-123"
      yield* collect(dnsUrl, safe.send(attemptFor(dnsUrl)))

      assert.deepStrictEqual(failures.map(([, e]) => e.code), ["timeout", "network", "tls", "ssrf-refused", "ssrf-refused", "dns"])
      for (const [url, error] of failures) {
        const host = new URL(url).hostname
        for (const text of [JSON.stringify(error), String(error), error.message, Object.keys(error).join(",")]) {
          for (const leak of [url, host, "sekret-token-123", secret, secret.slice(6)]) {
            assert.notInclude(text, leak, `${error.code}: ${text}`)
          }
        }
        assert.deepStrictEqual(Object.keys(error).filter((k) => k !== "_tag").sort(), ["code"])
      }
    }))

  it.live("send dies (a defect upstream) rather than answer for an attempt it cannot format", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "plain" })
      const exit = yield* Effect.exit(unsafeSender.send(attemptFor(target.url(), { signingSecret: null })))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      assert.strictEqual(target.connections(), 0)
    }))

  it("an attempt that cannot be formatted is a defect, not an answer", () => {
    const missing = HttpWebhookSender.render(attemptFor("https://x.test/", { signingSecret: null }), 1)
    assert.isTrue(Result.isFailure(missing) && missing.failure.reason === "missing-signing-secret")
    const bad = HttpWebhookSender.render(attemptFor("https://x.test/", { signingSecret: "whsec_sekret!!" }), 1)
    assert.isTrue(Result.isFailure(bad) && bad.failure.reason === "invalid-signing-secret")
    if (Result.isFailure(bad)) assert.notInclude(bad.failure.message, "sekret")
  })
})
