// The floor of any Effect HTTP server: the same logic as node.js (manual routing, key check over a
// Map, JSON.parse of the body, minimal validation) as one Effect app on @effect/platform-node's
// NodeHttpServer, with no router, no HttpApi and no schemas; tracer off and no request spans. The
// body is read as our host reads it on Node (two listeners on the IncomingMessage, one decode), not
// with the platform's reader. Whatever an HttpApi server adds is above this, so it bounds what our
// host can reach.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import { HttpMiddleware, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import { createServer } from "node:http"
import { host, principals, ready, teamsByOrg, upsert } from "./fixture.js"

/** The body's text, read with two listeners (as the host's runtime/NodeBody.ts does). */
const readText = (message) =>
  Effect.callback((resume) => {
    const chunks = []
    let size = 0
    message.on("data", (chunk) => {
      chunks.push(chunk)
      size += chunk.length
    })
    message.once("end", () => resume(Effect.succeed(Buffer.concat(chunks, size).toString("utf8"))))
    message.once("error", (error) => resume(Effect.fail(error)))
  })

const send = (status, body) => Effect.succeed(HttpServerResponse.jsonUnsafe(body, { status }))
const isText = (v, max, min = 0) => typeof v === "string" && v.length >= min && v.length <= max

const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) => {
  const parts = req.url.split("?")[0].split("/")
  const isTeams = req.method === "GET" && parts.length === 6 && parts[5] === "teams"
  const isMappings = req.method === "POST" && parts.length === 10 && parts[5] === "policy-groups" && parts[7] === "phases" &&
    parts[9] === "mappings"
  if (parts[1] !== "api" || parts[2] !== "v1" || parts[3] !== "org" || !(isTeams || isMappings)) return send(404, { status: 404 })
  const key = req.headers["x-api-key"]
  const principal = typeof key === "string" ? principals.get(key) : undefined
  if (principal === undefined) return send(401, { status: 401 })
  if (principal.orgId !== parts[4]) return send(404, { status: 404 })
  if (isTeams) {
    if (!principal.permissions.has("teams:read")) return send(403, { status: 403 })
    return send(200, { items: teamsByOrg.get(parts[4]) ?? [] })
  }
  if (!principal.permissions.has("mappings:write")) return send(403, { status: 403 })
  return Effect.matchEffect(readText(req.source), {
    onFailure: () => send(400, { status: 400 }),
    onSuccess: (text) => {
      let body
      try {
        body = JSON.parse(text)
      } catch {
        return send(400, { status: 400 })
      }
      if (
        body === null || typeof body !== "object" || !isText(body.fromImage, 1024, 1) || !isText(body.toImage, 1024, 1) ||
        (body.reason !== undefined && !isText(body.reason, 2000))
      ) return send(400, { status: 400 })
      const { created, mapping } = upsert(body)
      return send(created ? 201 : 200, mapping)
    }
  })
})

const Report = Layer.effectDiscard(Effect.flatMap(HttpServer.HttpServer, ({ address }) => Effect.sync(() => ready(address.port))))

// `HttpServer.serve()` adds no request log (only `HttpRouter.serve` does)
const Main = HttpServer.serve()(app).pipe(
  Layer.merge(Report),
  Layer.provide(NodeHttpServer.layer(() => createServer({ keepAliveTimeout: 5_000 }), { port: 0, host })),
  Layer.provide(Layer.succeed(References.TracerEnabled)(false)),
  Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen)(() => true))
)

Effect.runFork(Layer.launch(Main))
