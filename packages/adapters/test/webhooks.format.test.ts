import { assert, describe, it } from "@effect/vitest"
import { Event, type Outbox } from "@image-policy/core"
import { Address } from "@image-policy/core"
import { CloudEvent, HTTP } from "cloudevents"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as fc from "fast-check"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { Webhook as SvixWebhook } from "svix"
import { prop } from "../../core/test/support/fcProp.js"
import * as WebhookCloudEvent from "../src/webhooks/CloudEvent.js"
import * as Destination from "../src/webhooks/Destination.js"
import * as Signing from "../src/webhooks/Signing.js"
import { unicodeText } from "./arbitraries.js"
import { sampleEvent } from "./support/receiver.js"

const orgId = "org_demo"
const publicUrl = "https://policy.example.com/"
const secret = Signing.generateSigningSecret(new Uint8Array(32).map((_, i) => i * 7))

const structured = (event: Outbox.OutboxEvent) => Result.getOrThrow(WebhookCloudEvent.structured({ orgId, publicUrl, event }))

describe("CloudEvent body", () => {
  it("has the contracted attributes, in structured mode, readable by the SDK", () => {
    const event = sampleEvent()
    const message = structured(event)
    assert.strictEqual(message.contentType, "application/cloudevents+json; charset=utf-8")
    assert.deepStrictEqual(JSON.parse(message.body), {
      id: event.id,
      time: event.time,
      type: "service.snooze_request.created",
      source: "/api/v1/org/org_demo",
      specversion: "1.0",
      datacontenttype: "application/json",
      subject: event.subject,
      dataschema: "https://policy.example.com/api/v1/event-types/service.snooze_request.created",
      data: event.data,
      orgid: "org_demo",
      correlationid: event.correlationId,
      schemaversion: Event.SCHEMA_VERSION
    })
    const parsed = HTTP.toEvent({ headers: { "content-type": message.contentType }, body: message.body }) as CloudEvent<unknown>
    assert.isTrue(parsed.validate())
    assert.strictEqual(parsed.id, event.id)
    assert.deepStrictEqual(parsed.data, event.data)
  })

  it("is the same bytes every time for the same event (retries and replays keep id and body)", () => {
    assert.strictEqual(structured(sampleEvent()).body, structured(sampleEvent()).body)
  })

  it("refuses an event the CloudEvents schema refuses, naming the problem without values", () => {
    const result = WebhookCloudEvent.structured({ orgId, publicUrl, event: sampleEvent({ time: "yesterday-ish" }) })
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) {
      assert.strictEqual(result.failure._tag, "InvalidCloudEvent")
      assert.notInclude(result.failure.issue, "yesterday-ish")
    }
  })

  it("builds a valid event for every catalog type", () => {
    for (const type of Event.eventTypes) {
      const message = structured(sampleEvent({ type }))
      assert.isTrue(new CloudEvent(JSON.parse(message.body)).validate(), type)
    }
  })
})

describe("Signing", () => {
  it("generates whsec_ + base64 of 24..64 bytes and refuses other lengths", () => {
    for (const n of [24, 32, 64]) {
      const s = Signing.generateSigningSecret(new Uint8Array(n).fill(1))
      assert.match(s, /^whsec_[A-Za-z0-9+/]+={0,2}$/)
      assert.strictEqual(Result.getOrThrow(Signing.decodeSigningSecret(s)).length, n)
    }
    assert.throws(() => Signing.generateSigningSecret(new Uint8Array(23)), RangeError)
    assert.throws(() => Signing.generateSigningSecret(new Uint8Array(65)), RangeError)
    assert.isFalse(Signing.isSigningSecret("whsec_"))
    assert.isFalse(Signing.isSigningSecret("whsec_not base64!"))
    assert.isFalse(Signing.isSigningSecret(Signing.generateSigningSecret(new Uint8Array(32)).slice(6)))
    assert.isFalse(Signing.isSigningSecret("whsec_" + Buffer.from(new Uint8Array(16)).toString("base64")))
  })

  prop("any generated secret round-trips to its bytes", [fc.uint8Array({ minLength: 24, maxLength: 64 })], ([bytes]) => {
    assert.deepStrictEqual(Result.getOrThrow(Signing.decodeSigningSecret(Signing.generateSigningSecret(bytes))), bytes)
  })

  prop(
    "signatures verify with standardwebhooks and svix for any body, and only with the same secret",
    [unicodeText({ maxLength: 300 }), fc.uint8Array({ minLength: 24, maxLength: 64 })],
    ([text, other]) => {
      const body = JSON.stringify({ text })
      const now = Math.floor(Date.now() / 1000)
      const headers = Result.getOrThrow(Signing.sign({ secret, id: "evt_1", timestampSeconds: now, body }))
      assert.match(headers["webhook-signature"], /^v1,[A-Za-z0-9+/]+={0,2}$/)
      // node:crypto's HMAC gives the signature the standardwebhooks package computes itself
      assert.strictEqual(headers["webhook-signature"], new StandardWebhook(secret).sign("evt_1", new Date(now * 1000), body))
      assert.deepStrictEqual(new StandardWebhook(secret).verify(body, { ...headers }), { text })
      assert.deepStrictEqual(new SvixWebhook(secret).verify(body, { ...headers }), { text })
      // the bytes on the wire are the UTF-8 encoding of the signed string
      assert.deepStrictEqual(
        new StandardWebhook(secret).verify(Buffer.from(Signing.bodyBytes(body)), { ...headers }),
        { text }
      )
      const otherSecret = Signing.generateSigningSecret(other)
      if (otherSecret !== secret) assert.throws(() => new StandardWebhook(otherSecret).verify(body, { ...headers }))
    }
  )

  it("a new timestamp gives a new signature over the same id and body", () => {
    const body = structured(sampleEvent()).body
    const a = Result.getOrThrow(Signing.sign({ secret, id: "evt_1", timestampSeconds: 1_700_000_000, body }))
    const b = Result.getOrThrow(Signing.sign({ secret, id: "evt_1", timestampSeconds: 1_700_000_030, body }))
    assert.notStrictEqual(a["webhook-signature"], b["webhook-signature"])
    assert.strictEqual(a["webhook-id"], b["webhook-id"])
  })

  it("refuses a malformed secret without echoing it", () => {
    const result = Signing.sign({ secret: "whsec_%%%leaky%%%", id: "evt_1", timestampSeconds: 1, body: "{}" })
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) assert.notInclude(result.failure.message, "leaky")
  })
})

describe("Destination", () => {
  it("reads IP literals in every legacy spelling, without relying on the URL parser", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["2130706433", "loopback"],
      ["0x7f000001", "loopback"],
      ["0x7f.1", "loopback"],
      ["0177.0.0.1", "loopback"],
      ["127.1", "loopback"],
      ["127.0.0.1.", "loopback"],
      ["0", "unspecified"],
      ["012.1", "private"],
      ["[::ffff:127.0.0.1]", "ipv4-mapped"],
      ["::ffff:7f00:1", "ipv4-mapped"],
      ["[::1]", "loopback"]
    ]
    for (const [host, cls] of cases) {
      const ip = Destination.literalAddress(host)
      assert.isTrue(Option.isSome(ip), host)
      if (Option.isSome(ip)) assert.strictEqual(Address.classifyAddress(ip.value), cls, host)
    }
    for (const name of ["hooks.example.com", "1e100.net", "0x7g.1", "localhost"]) {
      assert.isTrue(Option.isNone(Destination.literalAddress(name)), name)
    }
  })

  it("keeps the port, the Host header and the path with its query, never the fragment", () => {
    const t = Result.getOrThrow(Destination.parse("https://Hooks.Example.com:8443/a/b?x=1#frag", { allowHttp: false }))
    assert.deepStrictEqual({ ...t, literal: Option.isSome(t.literal) }, {
      secure: true,
      hostname: "hooks.example.com",
      literal: false,
      port: 8443,
      hostHeader: "hooks.example.com:8443",
      path: "/a/b?x=1"
    })
    const v6 = Result.getOrThrow(Destination.parse("https://[2606:4700::1111]/", { allowHttp: false }))
    assert.strictEqual(v6.hostname, "2606:4700::1111")
    assert.strictEqual(v6.hostHeader, "[2606:4700::1111]")
    assert.strictEqual(v6.port, 443)
  })

  it("prefers an IPv4 answer when both families are present", () => {
    const answers = Result.getOrThrow(Address.checkResolvedAddresses("h", ["2606:4700::1111", "93.184.215.14"]))
    assert.strictEqual(Address.formatIpAddress(Destination.pick(answers)), "93.184.215.14")
  })
})
