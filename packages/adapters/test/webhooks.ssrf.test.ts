/**
 * The SSRF guard of the webhook sender (spec 6 "Delivery"): every spelling of a non-public
 * destination is refused by `checkEndpoint` (with its reason) and by `send` (code only), before
 * any socket is opened; and DNS is pinned: one resolution per attempt, and the connection goes to
 * the address that was checked, so a rebinding resolver cannot steer a delivery to loopback.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Attempt, WebhookSender } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as HttpWebhookSender from "../src/webhooks/HttpWebhookSender.js"
import * as Resolver from "../src/webhooks/Resolver.js"
import * as Signing from "../src/webhooks/Signing.js"
import { receiver, sampleEvent, testCertificate } from "./support/receiver.js"

const secret = Signing.generateSigningSecret(new Uint8Array(32).fill(7))
const PUBLIC = "93.184.215.14"
const certificate = testCertificate(["hooks.rebind.test", "localhost", "public.example.test"])

const attemptFor = (endpointUrl: string): Attempt => ({
  type: "generic",
  chatPlatform: null,
  endpointUrl,
  signingSecret: secret,
  orgId: "org_demo",
  event: sampleEvent(),
  publicUrl: "https://policy.example.com",
  timeoutMs: 3_000
})

type Expected =
  | { readonly _tag: "InvalidEndpoint"; readonly reason: string }
  | { readonly _tag: "UnsafeDestination"; readonly reason: string; readonly classes: ReadonlyArray<string> }

const unsafe = (classes: ReadonlyArray<string>, reason = "non-public"): Expected => ({ _tag: "UnsafeDestination", reason, classes })
const invalid = (reason: string): Expected => ({ _tag: "InvalidEndpoint", reason })

const dns: Readonly<Record<string, ReadonlyArray<string>>> = {
  "localhost": ["127.0.0.1"],
  "ip6-localhost.test": ["::1"],
  "mixed.example.test": [PUBLIC, "10.0.0.5"],
  "mixed6.example.test": ["2606:4700::1111", "fd00::1"],
  "metadata.example.test": ["169.254.169.254"],
  "mapped.example.test": ["::ffff:10.0.0.1"],
  "empty.example.test": [],
  "garbage.example.test": ["not-an-address"],
  "public.example.test": [PUBLIC]
}

describe("SSRF guard", () => {
  it.live("refuses every non-public spelling in checkEndpoint and in send, and never dials", () =>
    Effect.gen(function*() {
      // a loopback HTTPS canary: if the guard let anything through, it would count a connection
      const canary = yield* receiver({ mode: "plain", tls: certificate })
      const q = canary.port
      const lookups: Array<string> = []
      const table = Resolver.fromRecord(dns)
      const resolver: Resolver.Resolver = (host) => {
        lookups.push(host)
        return table(host)
      }
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: false, resolver, ca: certificate.cert })

      const cases: ReadonlyArray<readonly [string, string, Expected, string?]> = [
        ["decimal IPv4", `https://2130706433:${q}/hook`, unsafe(["loopback"])],
        ["hex IPv4", `https://0x7f000001:${q}/hook`, unsafe(["loopback"])],
        ["dotted hex IPv4", `https://0x7f.1:${q}/hook`, unsafe(["loopback"])],
        ["octal IPv4", `https://0177.0.0.1:${q}/hook`, unsafe(["loopback"])],
        ["whole octal IPv4", `https://017700000001:${q}/hook`, unsafe(["loopback"])],
        ["short IPv4 127.1", `https://127.1:${q}/hook`, unsafe(["loopback"])],
        ["dotted quad loopback", `https://127.0.0.1:${q}/hook`, unsafe(["loopback"])],
        ["trailing dot loopback", `https://127.0.0.1.:${q}/hook`, unsafe(["loopback"])],
        ["other loopback", "https://127.255.255.254/", unsafe(["loopback"])],
        ["0.0.0.0", `https://0.0.0.0:${q}/hook`, unsafe(["unspecified"])],
        ["bare 0", `https://0:${q}/hook`, unsafe(["unspecified"])],
        ["localhost (resolves to 127.0.0.1)", `https://localhost:${q}/hook`, unsafe(["loopback"])],
        ["name resolving to ::1", "https://ip6-localhost.test/", unsafe(["loopback"])],
        ["[::1]", `https://[::1]:${q}/hook`, unsafe(["loopback"])],
        ["[::]", "https://[::]/", unsafe(["unspecified"])],
        ["[::ffff:127.0.0.1]", `https://[::ffff:127.0.0.1]:${q}/hook`, unsafe(["ipv4-mapped"])],
        ["[::ffff:7f00:1]", `https://[::ffff:7f00:1]:${q}/hook`, unsafe(["ipv4-mapped"])],
        ["[0:0:0:0:0:ffff:127.0.0.1]", "https://[0:0:0:0:0:ffff:127.0.0.1]/", unsafe(["ipv4-mapped"])],
        ["IPv4-mapped public (still refused)", "https://[::ffff:8.8.8.8]/", unsafe(["ipv4-mapped"])],
        ["NAT64 of loopback", "https://[64:ff9b::7f00:1]/", unsafe(["loopback"])],
        ["6to4 of loopback", "https://[2002:7f00:1::1]/", unsafe(["loopback"])],
        ["10/8", "https://10.0.0.1/", unsafe(["private"])],
        ["10/8 top", "https://10.255.255.255/", unsafe(["private"])],
        ["172.16/12", "https://172.16.0.1/", unsafe(["private"])],
        ["172.16/12 top", "https://172.31.255.254/", unsafe(["private"])],
        ["192.168/16", "https://192.168.1.1/", unsafe(["private"])],
        ["cloud metadata 169.254.169.254", "https://169.254.169.254/latest/meta-data/", unsafe(["link-local"])],
        ["CGNAT 100.64/10", "https://100.64.0.1/", unsafe(["cgnat"])],
        ["CGNAT top", "https://100.127.255.254/", unsafe(["cgnat"])],
        ["fc00::/7", "https://[fc00::1]/", unsafe(["unique-local"])],
        ["fd00::/8", "https://[fd12:3456::1]/", unsafe(["unique-local"])],
        ["fe80:: link-local", "https://[fe80::1]/", unsafe(["link-local"])],
        ["multicast 224.0.0.1", "https://224.0.0.1/", unsafe(["multicast"])],
        ["IPv6 multicast", "https://[ff02::1]/", unsafe(["multicast"])],
        ["broadcast", "https://255.255.255.255/", unsafe(["broadcast"])],
        ["TEST-NET-1 192.0.2.x", "https://192.0.2.10/", unsafe(["documentation"])],
        ["TEST-NET-3 203.0.113.x", "https://203.0.113.7/", unsafe(["documentation"])],
        ["IPv6 documentation", "https://[2001:db8::1]/", unsafe(["documentation"])],
        ["benchmarking 198.18/15", "https://198.18.0.1/", unsafe(["benchmarking"])],
        ["benchmarking 198.19", "https://198.19.255.1/", unsafe(["benchmarking"])],
        ["reserved 240/4", "https://240.0.0.1/", unsafe(["reserved"])],
        ["IETF 192.0.0/24", "https://192.0.0.8/", unsafe(["reserved"])],
        ["DNS answer mixing public and private", "https://mixed.example.test/", unsafe(["private"], "mixed")],
        ["IPv6 DNS answer mixing public and ULA", "https://mixed6.example.test/", unsafe(["unique-local"], "mixed")],
        ["name resolving to metadata", "https://metadata.example.test/", unsafe(["link-local"])],
        ["name resolving to IPv4-mapped private", "https://mapped.example.test/", unsafe(["ipv4-mapped"])],
        ["name with no addresses", "https://empty.example.test/", unsafe([], "no-addresses")],
        ["resolver answering a non-address", "https://garbage.example.test/", unsafe([], "not-an-ip")],
        ["name that does not resolve", "https://nxdomain.example.test/", invalid("unresolvable"), "dns"],
        ["http:// scheme", `http://public.example.test:${q}/hook`, invalid("not-https")],
        ["http:// loopback", `http://127.0.0.1:${q}/hook`, invalid("not-https")],
        ["ftp:// scheme", "ftp://public.example.test/", invalid("not-https")],
        ["javascript: URL", "javascript:alert(1)", invalid("not-https")],
        ["userinfo user:pw", "https://user:pw@public.example.test/", invalid("credentials")],
        ["userinfo user only", "https://user@public.example.test/", invalid("credentials")],
        ["userinfo password only", "https://:pw@public.example.test/", invalid("credentials")],
        ["not a URL", "not a url", invalid("malformed")],
        ["scheme only", "https://", invalid("malformed")],
        ["space in host", "https://exa mple.test/", invalid("malformed")],
        ["relative URL", "//public.example.test/hook", invalid("malformed")],
        ["unclosed IPv6 bracket", "https://[::1/", invalid("malformed")],
        ["IPv6 zone id", "https://[fe80::1%25eth0]/", invalid("malformed")],
        ["host ending in a bad number", "https://hooks.999/", invalid("malformed")],
        ["empty string", "", invalid("malformed")]
      ]
      assert.isAtLeast(cases.length, 30)

      for (const [label, url, expected, sendCode = "ssrf-refused"] of cases) {
        const checked = yield* Effect.result(sender.checkEndpoint(url))
        assert.isTrue(Result.isFailure(checked), `${label}: checkEndpoint accepted ${url}`)
        if (Result.isFailure(checked)) {
          const error = checked.failure
          const actual = error._tag === "UnsafeDestination"
            ? { _tag: error._tag, reason: error.reason, classes: [...error.classes] }
            : { _tag: error._tag, reason: error.reason }
          assert.deepStrictEqual(actual, expected, label)
        }
        const sent = yield* Effect.result(sender.send(attemptFor(url)))
        assert.isTrue(Result.isFailure(sent), `${label}: send delivered to ${url}`)
        if (Result.isFailure(sent)) assert.strictEqual(sent.failure.code, sendCode, label)
      }

      assert.strictEqual(canary.connections(), 0)
      // IP literals are classified, never looked up
      const names = new Set(lookups)
      for (const name of names) assert.match(name, /^(localhost|[a-z0-9-]+\.example\.test|ip6-localhost\.test)$/)
    }))

  it.effect("the layer gives the same guard through the port", () =>
    Effect.gen(function*() {
      const sender = yield* WebhookSender
      const error = yield* Effect.flip(sender.checkEndpoint("https://2130706433/"))
      assert.strictEqual(error._tag, "UnsafeDestination")
    }).pipe(Effect.provide(HttpWebhookSender.layer({ allowUnsafeTargets: false, resolver: Resolver.fromRecord({}) }))))

  it.effect("a public endpoint passes checkEndpoint", () =>
    Effect.gen(function*() {
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: false, resolver: Resolver.fromRecord(dns) })
      yield* sender.checkEndpoint("https://public.example.test/hooks?x=1")
      yield* sender.checkEndpoint(`https://${PUBLIC}/`)
      yield* sender.checkEndpoint("https://[2606:4700::1111]:8443/")
    }))

  it.effect("unsafe mode allows http and loopback, still refuses credentials and other schemes", () =>
    Effect.gen(function*() {
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: true, resolver: Resolver.fromRecord({}) })
      yield* sender.checkEndpoint("http://127.0.0.1:9/hook")
      yield* sender.checkEndpoint("https://localhost/")
      assert.strictEqual((yield* Effect.flip(sender.checkEndpoint("http://u:p@127.0.0.1/")))._tag, "InvalidEndpoint")
      assert.strictEqual((yield* Effect.flip(sender.checkEndpoint("ftp://127.0.0.1/"))).reason, "not-https")
    }))
})

describe("DNS pinning", () => {
  it.live("a rebinding resolver never gets a delivery to loopback; each send resolves once and dials what it checked", () =>
    Effect.gen(function*() {
      // the legitimate receiver, reached only through the fake public address
      const legit = yield* receiver({ mode: "generic", secret, tls: certificate })
      // the rebinding victim: loopback, on the port the URL names
      const victim = yield* receiver({ mode: "plain", tls: certificate })
      const url = `https://hooks.rebind.test:${victim.port}/hook`

      // public at check time, loopback the next time, and so on
      let lookups = 0
      const resolver: Resolver.Resolver = (host) => {
        assert.strictEqual(host, "hooks.rebind.test")
        lookups++
        return Effect.succeed(lookups % 2 === 1 ? [PUBLIC] : ["127.0.0.1"])
      }
      const dialled: Array<HttpWebhookSender.PinnedAddress> = []
      const sender = HttpWebhookSender.make({
        allowUnsafeTargets: false,
        resolver,
        ca: certificate.cert,
        // the socket hook: only the fake public address is mapped (to the legit receiver); anything
        // else would go where it says, i.e. to the victim
        connectTo: (pinned) => {
          dialled.push(pinned)
          return pinned.address === PUBLIC ? { address: "127.0.0.1", port: legit.port } : pinned
        }
      })

      yield* sender.checkEndpoint(url) // lookup 1: public
      assert.strictEqual(lookups, 1)

      const second = yield* Effect.flip(sender.send(attemptFor(url))) // lookup 2: loopback
      assert.strictEqual(second.code, "ssrf-refused")
      assert.strictEqual(lookups, 2)
      assert.deepStrictEqual(dialled, [])

      const third = yield* sender.send(attemptFor(url)) // lookup 3: public
      assert.strictEqual(third.statusCode, 200)
      assert.strictEqual(lookups, 3)
      assert.deepStrictEqual(dialled, [{ address: PUBLIC, family: 4, port: victim.port }])
      assert.strictEqual(legit.deliveries.length, 1)
      // TLS and Host still name the URL's host although the socket went to a pinned address
      assert.strictEqual(legit.requests[0]!.headers.host, `hooks.rebind.test:${victim.port}`)

      const fourth = yield* Effect.flip(sender.send(attemptFor(url))) // lookup 4: loopback
      assert.strictEqual(fourth.code, "ssrf-refused")
      assert.strictEqual(lookups, 4)

      assert.strictEqual(victim.connections(), 0)
      assert.strictEqual(victim.requests.length, 0)
      assert.strictEqual(dialled.length, 1)
    }))

  it.live("a resolver whose answer changes mid-send cannot matter: one lookup per attempt", () =>
    Effect.gen(function*() {
      const legit = yield* receiver({ mode: "generic", secret, tls: certificate })
      let lookups = 0
      // answers public once, then loopback forever: a second lookup inside one send would be refused
      const resolver: Resolver.Resolver = () => Effect.succeed(++lookups === 1 ? [PUBLIC] : ["127.0.0.1"])
      const sender = HttpWebhookSender.make({
        allowUnsafeTargets: false,
        resolver,
        ca: certificate.cert,
        connectTo: (pinned) => {
          assert.strictEqual(pinned.address, PUBLIC)
          return { address: "127.0.0.1", port: legit.port }
        }
      })
      const result = yield* sender.send(attemptFor("https://hooks.rebind.test/hook"))
      assert.strictEqual(result.statusCode, 200)
      assert.strictEqual(lookups, 1)
    }))

  it.live("a dual-stack answer is checked whole and dialled at its IPv4 address", () =>
    Effect.gen(function*() {
      const legit = yield* receiver({ mode: "generic", secret, tls: certificate })
      const dialled: Array<string> = []
      const sender = HttpWebhookSender.make({
        allowUnsafeTargets: false,
        resolver: Resolver.fromRecord({ "hooks.rebind.test": ["2606:4700::1111", PUBLIC] }),
        ca: certificate.cert,
        connectTo: (pinned) => {
          dialled.push(pinned.address)
          return { address: "127.0.0.1", port: legit.port }
        }
      })
      assert.strictEqual((yield* sender.send(attemptFor("https://hooks.rebind.test/hook"))).statusCode, 200)
      assert.deepStrictEqual(dialled, [PUBLIC])
    }))
})
