// The bare @effect/platform HttpApi of the HTTP benchmark: x-api-key security middleware over a Map,
// the teams list and the mapping POST with a Schema payload. Served by effect.js (NodeHttpServer) and
// run as a web handler by steps.js.
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { principals, teamsByOrg, upsert } from "./fixture.js"

class Caller extends Context.Tag("Caller")() {}

class Auth extends HttpApiMiddleware.Tag()("Auth", {
  failure: Schema.Union(HttpApiError.Unauthorized, HttpApiError.NotFound),
  provides: Caller,
  security: { apiKey: HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }) }
}) {}

const Team = Schema.Struct({ id: Schema.String, name: Schema.String })
const Mapping = Schema.Struct({
  id: Schema.String,
  key: Schema.String,
  fromImage: Schema.String,
  toImage: Schema.String,
  reason: Schema.optional(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  phaseId: Schema.String
})
const MappingBody = Schema.Struct({
  fromImage: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1024)),
  toImage: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1024)),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(2000)))
})
const PathId = Schema.String.pipe(Schema.maxLength(200))

const Api = HttpApi.make("bench").add(
  HttpApiGroup.make("org")
    .add(HttpApiEndpoint.get("listTeams", "/org/:orgId/teams")
      .setPath(Schema.Struct({ orgId: PathId }))
      .addSuccess(Schema.Struct({ items: Schema.Array(Team) })))
    .add(HttpApiEndpoint.post("upsertMapping", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings")
      .setPath(Schema.Struct({ orgId: PathId, groupId: PathId, phaseId: PathId }))
      .setPayload(MappingBody)
      .addSuccess(Mapping, { status: 200 })
      .addSuccess(Mapping, { status: 201 })
      .addError(HttpApiError.Forbidden))
    .middleware(Auth)
    .prefix("/api/v1")
)

const AuthLive = Layer.succeed(Auth, {
  apiKey: (secret) =>
    Effect.suspend(() => {
      const principal = principals.get(Redacted.value(secret))
      return principal === undefined ? Effect.fail(new HttpApiError.Unauthorized()) : Effect.succeed(principal)
    })
})

const encodeMapping = Schema.encode(Mapping)

const OrgLive = HttpApiBuilder.group(Api, "org", (handlers) =>
  handlers
    .handle("listTeams", ({ path }) =>
      Effect.flatMap(Caller, (caller) =>
        caller.orgId !== path.orgId || !caller.permissions.has("teams:read")
          ? Effect.fail(new HttpApiError.NotFound())
          : Effect.succeed({ items: teamsByOrg.get(path.orgId) ?? [] })))
    .handle("upsertMapping", ({ path, payload }) =>
      Effect.flatMap(Caller, (caller) => {
        if (caller.orgId !== path.orgId) return Effect.fail(new HttpApiError.NotFound())
        if (!caller.permissions.has("mappings:write")) return Effect.fail(new HttpApiError.Forbidden())
        const { created, mapping } = upsert(payload)
        return Effect.map(Effect.orDie(encodeMapping(mapping)), (body) => HttpServerResponse.unsafeJson(body, { status: created ? 201 : 200 }))
      }))
).pipe(Layer.provide(AuthLive))

export const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(OrgLive), Layer.provide(AuthLive))
