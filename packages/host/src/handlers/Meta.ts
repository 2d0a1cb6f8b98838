import { Api } from "@image-policy/client/api/Api"
import { Event } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpServer, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Option from "effect/Option"
import * as Problems from "../http/Problems.js"
import * as OpenApiDocument from "../OpenApiDocument.js"

/**
 * The document and the catalog never change while the process runs: build them once. The document's
 * `servers` is the public URL, else the address this server listens at (known when the handlers are
 * built inside a listening server), else the origin the document was fetched from (`/`).
 */
export const MetaHandlers = (options: { readonly publicUrl?: string | undefined }) =>
  HttpApiBuilder.group(Api, "meta", (handlers) =>
    Effect.gen(function*() {
      const server = yield* Effect.serviceOption(HttpServer.HttpServer)
      const listening = Option.isSome(server) && server.value.address._tag !== "UnixPathAddress"
        ? HttpServer.formatAddress(server.value.address)
        : undefined
      const openApi = HttpServerResponse.jsonUnsafe(OpenApiDocument.make({ publicUrl: options.publicUrl ?? listening ?? "/" }))
      const catalog = Event.catalog()
      const byType = new Map<string, (typeof catalog)[number]>(catalog.map((entry) => [entry.type, entry]))
      return handlers
        .handleRaw("openApi", () => Effect.succeed(openApi))
        .handle("listEventTypes", () => Effect.succeed({ items: catalog }))
        .handle("getEventType", ({ params }) => {
          const entry = byType.get(params.type)
          return entry === undefined
            ? Effect.fail(
              Problems.make({
                status: 404,
                type: "/problems/event-type-not-found",
                detail: "no such event type; see GET /api/v1/event-types"
              })
            )
            : Effect.succeed(entry)
        })
    }))
