// The bare Effect 4 HttpApi of the HTTP benchmark (effect/http-api): an x-api-key security middleware
// over a Map, the teams list and the mapping POST with Schema path, payload and success schemas.
// Served by effect.js (NodeHttpServer) and run as a web handler by steps.js. The errors are the
// built-in ones without a body (`*NoContent`), as Effect 3's built-ins answered.
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { HttpServerResponse } from "effect/http"
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity
} from "effect/http-api"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { principals, teamsByOrg, upsert } from "./fixture.js"

class Caller extends Context.Service()("Caller") {}

class Auth extends HttpApiMiddleware.Service()("Auth", {
  error: [HttpApiError.UnauthorizedNoContent, HttpApiError.NotFoundNoContent],
  security: { apiKey: HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }) }
}) {}

const Team = Schema.Struct({ id: Schema.String, name: Schema.String })
const Mapping = Schema.Struct({
  id: Schema.String,
  key: Schema.String,
  fromImage: Schema.String,
  toImage: Schema.String,
  reason: Schema.optionalKey(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  phaseId: Schema.String
})
const MappingBody = Schema.Struct({
  fromImage: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  toImage: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  reason: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2000)))
})
const PathId = Schema.String.check(Schema.isMaxLength(200))

const Api = HttpApi.make("bench").add(
  HttpApiGroup.make("org")
    .add(
      HttpApiEndpoint.get("listTeams", "/org/:orgId/teams", {
        params: { orgId: PathId },
        success: Schema.Struct({ items: Schema.Array(Team) })
      }),
      HttpApiEndpoint.post("upsertMapping", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings", {
        params: { orgId: PathId, groupId: PathId, phaseId: PathId },
        payload: MappingBody,
        success: [Mapping, Mapping.pipe(HttpApiSchema.status(201))],
        error: HttpApiError.ForbiddenNoContent
      })
    )
    .middleware(Auth)
    .prefix("/api/v1")
)

const AuthLive = Layer.succeed(Auth)({
  apiKey: (httpEffect, { credential }) => {
    const principal = principals.get(Redacted.value(credential))
    return principal === undefined ? Effect.fail(new HttpApiError.Unauthorized()) : Effect.provideService(httpEffect, Caller, principal)
  }
})

const encodeMapping = Schema.encodeEffect(Mapping)

const OrgLive = HttpApiBuilder.group(Api, "org", (handlers) =>
  handlers
    .handle("listTeams", ({ params }) =>
      Effect.flatMap(Caller, (caller) =>
        caller.orgId !== params.orgId || !caller.permissions.has("teams:read")
          ? Effect.fail(new HttpApiError.NotFound())
          : Effect.succeed({ items: teamsByOrg.get(params.orgId) ?? [] })))
    .handle("upsertMapping", ({ params, payload }) =>
      Effect.flatMap(Caller, (caller) => {
        if (caller.orgId !== params.orgId) {
          return Effect.fail(new HttpApiError.NotFound())
        }
        if (!caller.permissions.has("mappings:write")) {
          return Effect.fail(new HttpApiError.Forbidden())
        }
        const { created, mapping } = upsert(payload)
        return Effect.map(Effect.orDie(encodeMapping(mapping)), (body) =>
          HttpServerResponse.jsonUnsafe(body, { status: created ? 201 : 200 }))
      })))

/** The routes on the HttpRouter (needs the router and the HTTP services: `HttpRouter.serve` / `toWebHandler`). */
export const ApiLive = HttpApiBuilder.layer(Api).pipe(Layer.provide(OrgLive), Layer.provide(AuthLive))
