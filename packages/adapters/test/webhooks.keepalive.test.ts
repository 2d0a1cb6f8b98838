/**
 * Connection reuse of the webhook sender (HttpWebhookSender.ts "Keep-alive"): attempts to one pinned address
 * share a connection; an attempt whose resolution gives another address never rides a socket
 * opened for the first; a pooled connection the receiver drops is replaced, and the attempt
 * still gets its answer.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Attempt } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as HttpWebhookSender from "../src/webhooks/HttpWebhookSender.js"
import * as Resolver from "../src/webhooks/Resolver.js"
import * as Signing from "../src/webhooks/Signing.js"
import { receiver, sampleEvent, testCertificate } from "./support/receiver.js"

const secret = Signing.generateSigningSecret(new Uint8Array(32).map((_, i) => i + 7))

const attemptFor = (endpointUrl: string, id = "evt_0123456789abcdefghjkmnpqrs"): Attempt => ({
  type: "generic",
  chatPlatform: null,
  endpointUrl,
  signingSecret: secret,
  orgId: "org_demo",
  event: sampleEvent({ id: id as Attempt["event"]["id"] }),
  publicUrl: "https://policy.example.com",
  timeoutMs: 5_000
})

const eventId = (i: number) => `evt_${String(i).padStart(26, "0")}`

describe("keep-alive", () => {
  it.live("attempts to one address share one connection, and every one is verified", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret })
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: true })
      for (let i = 0; i < 5; i++) {
        assert.strictEqual((yield* sender.send(attemptFor(target.url(), eventId(i)))).statusCode, 200)
      }
      assert.strictEqual(target.deliveries.length, 5)
      assert.deepStrictEqual(target.rejections, [])
      assert.strictEqual(target.connections(), 1)
    }))

  it.live("keepAlive: false opens a connection per attempt", () =>
    Effect.gen(function*() {
      const target = yield* receiver({ mode: "generic", secret })
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: true, keepAlive: false })
      for (let i = 0; i < 3; i++) yield* sender.send(attemptFor(target.url(), eventId(i)))
      assert.strictEqual(target.connections(), 3)
    }))

  it.live("a name that resolves to another address gets another connection (over TLS, same name)", () =>
    Effect.gen(function*() {
      const certificate = testCertificate(["hooks.pool.test"])
      const target = yield* receiver({ mode: "generic", secret, tls: certificate })
      // public answers that change between attempts; the connect hook sends both to the receiver
      const answers = ["93.184.215.14", "93.184.215.14", "93.184.215.15", "93.184.215.14"]
      let lookups = 0
      const resolver: Resolver.Resolver = () => Effect.succeed([answers[lookups++]!])
      const dialled: Array<string> = []
      const sender = HttpWebhookSender.make({
        allowUnsafeTargets: false,
        resolver,
        ca: certificate.cert,
        connectTo: (pinned) => {
          dialled.push(pinned.address)
          return { address: "127.0.0.1", port: target.port }
        }
      })
      for (let i = 0; i < answers.length; i++) {
        assert.strictEqual((yield* sender.send(attemptFor(`https://hooks.pool.test:${target.port}/hook`, eventId(i)))).statusCode, 200)
      }
      assert.deepStrictEqual(dialled, answers)
      // one connection for .14 (used by the first, second and fourth attempts), one for .15
      assert.strictEqual(target.connections(), 2)
      assert.strictEqual(target.deliveries.length, answers.length)
    }))

  it.live("a pooled connection the receiver drops as the next attempt arrives: the attempt is sent on a new one", () =>
    Effect.gen(function*() {
      // answers the first request of every connection and drops the connection at its second one
      let connections = 0
      let answered = 0
      const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
        const socket = req.socket as typeof req.socket & { served?: number }
        socket.served = (socket.served ?? 0) + 1
        req.resume()
        req.on("end", () => {
          if (socket.served! > 1) return socket.destroy()
          answered++
          res.writeHead(204).end()
        })
      })
      server.on("connection", () => connections++)
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
        () =>
          Effect.promise(() =>
            new Promise<void>((resolve) => {
              server.closeAllConnections()
              server.close(() => resolve())
            })
          )
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
      const sender = HttpWebhookSender.make({ allowUnsafeTargets: true })
      assert.strictEqual((yield* sender.send(attemptFor(url, eventId(1)))).statusCode, 204)
      assert.strictEqual((yield* sender.send(attemptFor(url, eventId(2)))).statusCode, 204)
      assert.strictEqual(answered, 2)
      assert.strictEqual(connections, 2)
    }))
})
