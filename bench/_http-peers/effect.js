// The bare Effect 4 HttpApi server (effectApi.js) on @effect/platform-node. `tracer=on|off` (argv[2]).
// No request log (Effect 4's `HttpRouter.serve` logs every response unless told not to; the
// Effect 3 server of this benchmark logged nothing, and our host's access log is off here too).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import { createServer } from "node:http"
import { ApiLive } from "./effectApi.js"
import { host, ready } from "./fixture.js"

const tracer = process.argv[2] === "on"

const Report = Layer.effectDiscard(
  Effect.flatMap(HttpServer.HttpServer, ({ address }) => Effect.sync(() => ready(address.port)))
)

const Main = HttpRouter.serve(ApiLive, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.merge(Report),
  Layer.provide(NodeHttpServer.layer(() => createServer({ keepAliveTimeout: 5_000 }), { port: 0, host })),
  Layer.provide(Layer.succeed(References.TracerEnabled)(tracer))
)

Effect.runFork(Layer.launch(Main))
