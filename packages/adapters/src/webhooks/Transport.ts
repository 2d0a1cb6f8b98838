/**
 * One HTTP(S) POST to an already checked, pinned address (the only module of the webhook sender
 * that touches `node:http`/`node:https`; Deno implements both).
 *
 * - The socket goes to `address`: Node connects to an IP host without any lookup, so nothing can
 *   re-resolve the name between the SSRF check and the connection.
 * - The URL's host name still drives TLS (SNI and the certificate name check, via `servername`) and
 *   the `Host` header, so virtual hosts and certificates work as if the name had been dialled.
 * - A fresh agent per request (`agent: false`): a pooled keep-alive socket would be keyed by host
 *   name and could carry a later attempt to an address that attempt never checked.
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
}

export interface Response {
  readonly statusCode: number
  readonly retryAfter: string | undefined
}

// OpenSSL and Node's TLS layer report certificate and handshake problems under these codes.
const tlsCode = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|EPROTO$)/

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

export const post = (request: Request): Effect.Effect<Response, SendFailure> =>
  Effect.async<Response, SendFailure>((resume) => {
    const state = { secure: request.secure, connected: false, handshaken: false }
    let settled = false
    const options: https.RequestOptions = {
      method: "POST",
      host: request.address,
      family: request.family,
      port: request.port,
      path: request.path,
      headers: { ...request.headers, host: request.hostHeader, "content-length": String(request.body.byteLength) },
      agent: false,
      ...(request.secure && request.servername !== undefined ? { servername: request.servername } : {}),
      ...(request.secure && request.ca !== undefined ? { ca: typeof request.ca === "string" ? request.ca : [...request.ca] } : {})
    }
    const req = request.secure ? https.request(options) : http.request(options)
    req.on("socket", (socket) => {
      socket.once("connect", () => {
        state.connected = true
      })
      socket.once("secureConnect", () => {
        state.handshaken = true
      })
    })
    req.on("error", (error) => {
      if (settled) return
      settled = true
      resume(Effect.fail(new SendFailure({ code: classifyError(error, state) })))
    })
    req.on("response", (res) => {
      settled = true
      const retryAfter = res.headers["retry-after"]
      resume(Effect.succeed({ statusCode: res.statusCode ?? 0, retryAfter: typeof retryAfter === "string" ? retryAfter : undefined }))
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
        req.destroy()
      })
    })
    req.end(request.body)
    // interruption (the attempt's timeout): abandon the request and its socket
    return Effect.sync(() => {
      settled = true
      req.destroy()
    })
  })
