// Fastify: the same two routes, a JSON schema on the POST body, the key checked in a preHandler hook.
import Fastify from "fastify"
import { host, principals, ready, teamsByOrg, upsert } from "./fixture.js"

const app = Fastify({ logger: false })

const auth = async (request, reply) => {
  const key = request.headers["x-api-key"]
  const principal = typeof key === "string" ? principals.get(key) : undefined
  if (principal === undefined) return reply.code(401).send({ status: 401, title: "Unauthorized" })
  if (principal.orgId !== request.params.orgId) return reply.code(404).send({ status: 404, title: "Not Found" })
  request.principal = principal
}

const Team = { type: "object", properties: { id: { type: "string" }, name: { type: "string" } }, required: ["id", "name"] }
const Mapping = {
  type: "object",
  properties: {
    id: { type: "string" },
    key: { type: "string" },
    fromImage: { type: "string" },
    toImage: { type: "string" },
    reason: { type: "string" },
    createdAt: { type: "string" },
    updatedAt: { type: "string" },
    phaseId: { type: "string" }
  }
}

app.get("/api/v1/org/:orgId/teams", {
  preHandler: auth,
  schema: { response: { 200: { type: "object", properties: { items: { type: "array", items: Team } } } } }
}, async (request, reply) => {
  if (!request.principal.permissions.has("teams:read")) return reply.code(403).send({ status: 403 })
  return { items: teamsByOrg.get(request.params.orgId) ?? [] }
})

app.post("/api/v1/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings", {
  preHandler: auth,
  schema: {
    body: {
      type: "object",
      required: ["fromImage", "toImage"],
      properties: {
        fromImage: { type: "string", minLength: 1, maxLength: 1024 },
        toImage: { type: "string", minLength: 1, maxLength: 1024 },
        reason: { type: "string", maxLength: 2000 }
      }
    },
    response: { 200: Mapping, 201: Mapping }
  }
}, async (request, reply) => {
  if (!request.principal.permissions.has("mappings:write")) return reply.code(403).send({ status: 403 })
  const { created, mapping } = upsert(request.body)
  return reply.code(created ? 201 : 200).send(mapping)
})

await app.listen({ port: 0, host })
ready(app.server.address().port)
