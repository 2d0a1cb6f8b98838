/**
 * A webhook receiver for tests, written the way a careful integrator would write one (spec 6
 * "Delivery"): it verifies the exact raw body BEFORE parsing it, with both the `standardwebhooks`
 * verifier and the `svix` verifier (the latter with the `webhook-*` names and again with the same
 * values under its own `svix-*` names), rejects stale timestamps, deduplicates by `webhook-id`,
 * and only then reads the envelope with the `cloudevents` SDK (`HTTP.toEvent` + `validate`).
 *
 * It also counts TCP connections, so an SSRF test can show that a refused target was never even
 * dialled, and it can answer with any status and headers, or never answer at all.
 */
import type { Outbox } from "@image-policy/core"
import { type CloudEvent, HTTP } from "cloudevents"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { Webhook as SvixWebhook } from "svix"

export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly rawBody: string
}

export interface Delivery {
  readonly id: string
  readonly timestamp: number
  readonly signature: string
  readonly rawBody: string
  readonly event: CloudEvent<unknown>
}

export type RejectionReason =
  | "missing-headers"
  | "stale"
  | "signature-standardwebhooks"
  | "signature-svix"
  | "signature-svix-headers"
  | "envelope"

export interface Answer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** `"hang"`: read the request and never answer. */
export type Responder = (request: ReceivedRequest) => Answer | "hang"

export interface Options {
  /**
   * generic: verify, deduplicate and parse every delivery as a signed CloudEvent.
   * plain: record and answer (chat destinations, SSRF canaries).
   */
  readonly mode: "generic" | "plain"
  readonly secret?: string
  /** Allowed distance between `webhook-timestamp` and the receiver's clock. Default 300 s. */
  readonly toleranceSeconds?: number
  /** Serve HTTPS with this key and certificate instead of HTTP. */
  readonly tls?: { readonly key: string; readonly cert: string }
  readonly respond?: Responder
}

export interface Receiver {
  readonly port: number
  /** `http(s)://127.0.0.1:<port><path>` */
  readonly url: (path?: string) => string
  /** Every TCP connection accepted, even ones that never sent a request. */
  readonly connections: () => number
  readonly requests: ReadonlyArray<ReceivedRequest>
  /** Verified, first-seen deliveries (generic mode). */
  readonly deliveries: ReadonlyArray<Delivery>
  /** Verified deliveries whose `webhook-id` had been seen before: acknowledged, not processed again. */
  readonly duplicates: ReadonlyArray<Delivery>
  readonly rejections: ReadonlyArray<RejectionReason>
  readonly setSecret: (secret: string) => void
  readonly setResponder: (respond: Responder) => void
  readonly close: () => Promise<void>
}

const header = (headers: http.IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

const attempt = (f: () => unknown): boolean => {
  try {
    f()
    return true
  } catch {
    return false
  }
}

export const start = async (options: Options): Promise<Receiver> => {
  let secret = options.secret
  let respond: Responder = options.respond ?? (() => ({ status: 200, body: "{}" }))
  const tolerance = options.toleranceSeconds ?? 300
  let connections = 0
  const requests: Array<ReceivedRequest> = []
  const deliveries: Array<Delivery> = []
  const duplicates: Array<Delivery> = []
  const rejections: Array<RejectionReason> = []
  const seen = new Set<string>()

  const verify = (request: ReceivedRequest): { delivery: Delivery; duplicate: boolean } | RejectionReason => {
    const id = header(request.headers, "webhook-id")
    const timestamp = header(request.headers, "webhook-timestamp")
    const signature = header(request.headers, "webhook-signature")
    if (id === undefined || timestamp === undefined || signature === undefined || secret === undefined) {
      return "missing-headers"
    }
    const nowSeconds = Math.floor(Date.now() / 1000)
    if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > tolerance) return "stale"
    const signed = { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature }
    const key = secret
    // the raw text, never a re-serialization of parsed JSON: that is what was signed
    if (!attempt(() => new StandardWebhook(key).verify(request.rawBody, signed))) return "signature-standardwebhooks"
    if (!attempt(() => new SvixWebhook(key).verify(request.rawBody, signed))) return "signature-svix"
    const svixNames = { "svix-id": id, "svix-timestamp": timestamp, "svix-signature": signature }
    if (!attempt(() => new SvixWebhook(key).verify(request.rawBody, svixNames))) return "signature-svix-headers"
    let event: CloudEvent<unknown>
    try {
      const parsed = HTTP.toEvent({ headers: request.headers, body: request.rawBody })
      if (Array.isArray(parsed)) return "envelope"
      event = parsed as CloudEvent<unknown>
      event.validate()
    } catch {
      return "envelope"
    }
    if (event.id !== id) return "envelope"
    const delivery: Delivery = { id, timestamp: Number(timestamp), signature, rawBody: request.rawBody, event }
    const duplicate = seen.has(id)
    seen.add(id)
    return { delivery, duplicate }
  }

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const request: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString("utf8")
      }
      requests.push(request)
      if (options.mode === "generic") {
        const verdict = verify(request)
        if (typeof verdict === "string") {
          rejections.push(verdict)
          res.writeHead(verdict === "missing-headers" || verdict === "envelope" || verdict === "stale" ? 400 : 401).end()
          return
        }
        if (verdict.duplicate) {
          // already processed: acknowledge so the sender stops, do nothing else
          duplicates.push(verdict.delivery)
          res.writeHead(200).end()
          return
        }
        deliveries.push(verdict.delivery)
      }
      const answer = respond(request)
      if (answer === "hang") return
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? "")
    })
  }

  const server = options.tls === undefined
    ? http.createServer(handler)
    : https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler)
  server.on("connection", () => {
    connections++
  })
  // a client that gives up mid-handshake must not fail the test
  server.on("tlsClientError", () => {})
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const scheme = options.tls === undefined ? "http" : "https"

  return {
    port,
    url: (path = "/hook") => `${scheme}://127.0.0.1:${port}${path}`,
    connections: () => connections,
    requests,
    deliveries,
    duplicates,
    rejections,
    setSecret: (next) => {
      secret = next
    },
    setResponder: (next) => {
      respond = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A receiver for the test's scope. */
export const receiver = (options: Options): Effect.Effect<Receiver, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => start(options)), (r) => Effect.promise(() => r.close()))

/** A port that was free a moment ago and has nothing listening on it now. */
export const closedPort = async (): Promise<number> => {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * A throwaway self-signed certificate (EC P-256, valid two days) for the given DNS names, made
 * with the `openssl` command at test time so no private key is ever committed. The certificate
 * is its own CA: pass it as the sender's `ca`.
 */
export const testCertificate = (dnsNames: ReadonlyArray<string>): { readonly key: string; readonly cert: string } => {
  const dir = mkdtempSync(join(tmpdir(), "webhook-tls-"))
  try {
    execFileSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "2",
      "-subj",
      `/CN=${dnsNames[0]}`,
      "-addext",
      `subjectAltName=${dnsNames.map((n) => `DNS:${n}`).join(",")}`
    ], { stdio: "pipe" })
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A snooze-request event as the outbox stores it. */
export const sampleEvent = (overrides: Partial<Outbox.OutboxEvent> = {}): Outbox.OutboxEvent => ({
  id: "evt_0123456789abcdefghjkmnpqrs" as Outbox.OutboxEvent["id"],
  type: "service.snooze_request.created",
  subject: "exception_review/snz_0123456789abcdefghjkmnpqrs",
  time: "2025-03-04T05:06:07.000Z",
  correlationId: "req_0123456789",
  data: {
    snooze_request_id: "snz_0123456789abcdefghjkmnpqrs",
    previous_status: null,
    current_status: "pending",
    action: "created",
    repository_id: "repo_0123456789abcdefghjkmnpqrs",
    changed_at: "2025-03-04T05:06:07.000Z"
  },
  ...overrides
})
