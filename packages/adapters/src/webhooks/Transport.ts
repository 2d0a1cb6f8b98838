/**
 * One HTTP(S) POST to an already checked, pinned address (the only module of the webhook sender
 * that touches `node:http`/`node:https`; Deno implements both).
 *
 * - The socket goes to `address`: Node connects to an IP host without any lookup, so nothing can
 *   re-resolve the name between the SSRF check and the connection.
 * - The URL's host name still drives TLS (SNI and the certificate name check, via `servername`) and
 *   the `Host` header, so virtual hosts and certificates work as if the name had been dialled.
 * - No shared pool: either a fresh connection (`agent: false`), or the keep-alive `agent` the sender
 *   keeps for exactly this pinned address, port and TLS name (`keepAliveAgent`), so a pooled socket
 *   only ever carries an attempt to the address that attempt checked. A pooled socket the receiver
 *   closed while idle is retried once on a fresh connection (the request was never answered).
 * - `timeoutMs` is enforced here with one timer (abandon the request, fail "timeout"): an Effect
 *   race per attempt costs more CPU than the request itself.
 * - Redirects are never followed (Node does not follow them): a 3xx is the answer.
 * - The response body is drained and discarded up to a size cap, then the socket is destroyed.
 *
 * Errors carry only a short code: Node's error texts can quote the host and path.
 */
import { SendFailure } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as http from "node:http"
import * as https from "node:https"

export interface Request {
  readonly secure: boolean
  /** The pinned IP address (or where a test's connect hook sends it). */
  readonly address: string
  readonly family: 4 | 6
  readonly port: number
  /** TLS server name (SNI, certificate check); absent for an IP-literal URL. */
  readonly servername: string | undefined
  readonly hostHeader: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /** Extra trusted CA certificates (PEM), for tests with a private CA. */
  readonly ca: string | ReadonlyArray<string> | undefined
  readonly maxResponseBytes: number
  /** How long the body of an answered request may keep draining before the socket is closed. */
  readonly drainTimeoutMs: number
  /** Time limit until the answer's status line and headers; none when absent. */
  readonly timeoutMs?: number | undefined
  /** A keep-alive agent for this pinned address only (`keepAliveAgent`); absent: a fresh connection. */
  readonly agent?: Agent | undefined
}

export type Agent = http.Agent

/**
 * A keep-alive agent for ONE pinned address, port and TLS name (the caller keys them). Idle sockets
 * are closed after `idleMs`, well before the usual server keep-alive timeouts (5 s on Node, 60 s
 * and more behind load balancers), and never keep the process alive.
 */
export const keepAliveAgent = (secure: boolean, idleMs: number): Agent =>
  new (secure ? https.Agent : http.Agent)({ keepAlive: true, timeout: idleMs, scheduling: "lifo" })

export interface Response {
  readonly statusCode: number
  readonly retryAfter: string | undefined
}

// OpenSSL and Node's TLS layer report certificate and handshake problems under these codes.
const tlsCode =
  /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|EPROTO$)/

/** "tls" for certificate and handshake failures, "network" for everything else below HTTP. */
export const classifyError = (
  error: unknown,
  state: { readonly secure: boolean; readonly connected: boolean; readonly handshaken: boolean }
): "tls" | "network" => {
  const code = (error as { code?: unknown } | null)?.code
  if (!state.secure) return "network"
  if (typeof code === "string" && tlsCode.test(code)) return "tls"
  // the TCP connection stood but the handshake never finished (a peer that speaks no TLS, a reset)
  return state.connected && !state.handshaken ? "tls" : "network"
}

// the receiver closed an idle pooled connection as we reused it
const staleSocket = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code
  return code === "ECONNRESET" || code === "EPIPE"
}

export const post = (request: Request): Effect.Effect<Response, SendFailure> =>
  Effect.callback<Response, SendFailure>((resume) => {
    let settled = false
    let current: http.ClientRequest | undefined
    const deadline = request.timeoutMs === undefined ? undefined : setTimeout(() => {
      if (settled) return
      settled = true
      current?.destroy()
      resume(Effect.fail(new SendFailure({ code: "timeout" })))
    }, request.timeoutMs)
    /** `defer`: hand the result back in a microtask (see the answer below) */
    const settle = (result: Effect.Effect<Response, SendFailure>, defer = false) => {
      settled = true
      clearTimeout(deadline)
      if (defer) queueMicrotask(() => resume(result))
      else resume(result)
    }
    const start = (agent: Agent | false) => {
      const state = { secure: request.secure, connected: false, handshaken: false }
      const options: https.RequestOptions = {
        method: "POST",
        host: request.address,
        family: request.family,
        port: request.port,
        path: request.path,
        headers: { ...request.headers, host: request.hostHeader, "content-length": String(request.body.byteLength) },
        agent,
        ...(request.secure && request.servername !== undefined ? { servername: request.servername } : {}),
        ...(request.secure && request.ca !== undefined ? { ca: typeof request.ca === "string" ? request.ca : [...request.ca] } : {})
      }
      const req = request.secure ? https.request(options) : http.request(options)
      current = req
      req.on("socket", (socket) => {
        // a pooled socket is connected (and its TLS handshake done) already
        if (!socket.connecting) {
          state.connected = true
          state.handshaken = true
          return
        }
        socket.once("connect", () => {
          state.connected = true
        })
        socket.once("secureConnect", () => {
          state.handshaken = true
        })
      })
      req.on("error", (error) => {
        if (settled) return
        if (agent !== false && req.reusedSocket && staleSocket(error)) return start(false)
        settle(Effect.fail(new SendFailure({ code: classifyError(error, state) })))
      })
      req.on("response", (res) => {
        if (settled) {
          req.destroy()
          return
        }
        const retryAfter = res.headers["retry-after"]
        const answer = Effect.succeed({
          statusCode: res.statusCode ?? 0,
          retryAfter: typeof retryAfter === "string" ? retryAfter : undefined
        })
        // Effect 4 resumes the fiber synchronously, inside this event: the caller's next attempt
        // would start before Node has read the (usually already received) rest of the answer and
        // freed the pooled socket, and would open a second connection. A microtask runs after
        // Node's nextTick queue (where the body's end and the socket's release happen), as the
        // Effect 3 scheduler did; the body is still never waited for.
        settle(answer, true)
        // drain in the background: the answer is known, the body is never needed
        let received = 0
        const timer = setTimeout(() => req.destroy(), request.drainTimeoutMs)
        res.on("data", (chunk: Uint8Array) => {
          received += chunk.byteLength
          if (received > request.maxResponseBytes) req.destroy()
        })
        res.on("error", () => {})
        res.on("close", () => {
          clearTimeout(timer)
          // a pooled socket goes back to its agent only after a complete answer
          if (agent === false || !res.complete) req.destroy()
        })
      })
      req.end(request.body)
    }
    start(request.agent ?? false)
    // interruption: abandon the request and its socket
    return Effect.sync(() => {
      settled = true
      clearTimeout(deadline)
      current?.destroy()
    })
  })
