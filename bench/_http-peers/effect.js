// A bare @effect/platform HttpApi server (effectApi.js) on @effect/platform-node. `tracer=on|off` (argv[2]).
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { ApiLive } from "./effectApi.js"
import { host, ready } from "./fixture.js"

const tracer = process.argv[2] === "on"

const Report = Layer.effectDiscard(HttpServer.addressWith((address) => Effect.sync(() => ready(address.port))))

const Main = HttpApiBuilder.serve().pipe(
  Layer.provide(ApiLive),
  Layer.merge(Report),
  Layer.provide(NodeHttpServer.layer(() => createServer({ keepAliveTimeout: 5_000 }), { port: 0, host }))
)

Effect.runFork(Layer.launch(Main).pipe(Effect.provide(Layer.setTracerEnabled(tracer))))
