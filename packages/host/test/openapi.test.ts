/**
 * The published contract (spec 4, 9; contracts 3, 4, 5, 6): `GET /api/v1/openapi.json` is a valid
 * OpenAPI 3.1 document naming every route with its permissions and problem answers, and
 * `GET /api/v1/event-types` is the catalog of every event type with a JSON Schema of its data.
 */
import { Validator } from "@seriousme/openapi-schema-validator"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "./support/harness.js"
import { expectProblem } from "./support/problem.js"

/** Spec section 4's table, path and method exactly as written there. */
const specRoutes: ReadonlyArray<readonly [string, string, ReadonlyArray<string> | null]> = [
  ["get", "/api/v1/openapi.json", null],
  ["get", "/api/v1/event-types", null],
  ["get", "/api/v1/org/{orgId}/repositories", ["repositories:read"]],
  ["post", "/api/v1/org/{orgId}/repositories", ["repositories:manage"]],
  ["get", "/api/v1/org/{orgId}/vcs-connections", ["vcs:read"]],
  ["get", "/api/v1/org/{orgId}/vcs-connections/{connectionId}/available-repos", ["vcs:read"]],
  ["get", "/api/v1/org/{orgId}/vcs-connections/{connectionId}/available-branches", ["vcs:read"]],
  ["get", "/api/v1/org/{orgId}/teams", ["teams:read"]],
  ["get", "/api/v1/org/{orgId}/teams/{teamId}/routines", ["teams:read"]],
  ["get", "/api/v1/org/{orgId}/policy-groups", ["policy:read"]],
  ["get", "/api/v1/org/{orgId}/policy-groups/{groupId}/details", ["policy:read"]],
  ["post", "/api/v1/org/{orgId}/policy-groups/{groupId}/phases/{phaseId}/mappings", ["mappings:write"]],
  ["post", "/api/v1/org/{orgId}/policy-groups/{groupId}/publish", ["policy:publish"]],
  // spec 5.5 lists "read ... Policy Groups and repositories" together; the read of a repository's
  // assignments is a repository read
  ["get", "/api/v1/org/{orgId}/repositories/{repositoryId}/policy-groups", ["repositories:read"]],
  ["post", "/api/v1/org/{orgId}/repositories/{repositoryId}/policy-groups", ["assignments:manage"]]
]

/** Contracts section 5 routes served so far (webhook routes are checked below when present). */
const contractRoutes: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
  ["get", "/api/v1/org/{orgId}/routines", ["teams:read"]],
  ["get", "/api/v1/org/{orgId}/policy-groups/{groupId}/phases/{phaseId}/mappings", ["policy:read"]],
  ["post", "/api/v1/org/{orgId}/policy-groups/{groupId}/phases/{phaseId}/sync", ["policy:publish"]],
  ["get", "/api/v1/org/{orgId}/repositories/{repositoryId}/resolve", ["policy:read"]],
  ["get", "/api/v1/org/{orgId}/api-keys", ["api-keys:manage"]],
  ["post", "/api/v1/org/{orgId}/api-keys", ["api-keys:manage"]],
  ["post", "/api/v1/org/{orgId}/api-keys/{keyId}/revoke", ["api-keys:manage"]],
  ["get", "/api/v1/org/{orgId}/snooze-requests", ["exceptions:read"]],
  ["post", "/api/v1/org/{orgId}/snooze-requests", ["exceptions:write"]],
  ["post", "/api/v1/org/{orgId}/snooze-requests/{snoozeRequestId}/review", ["exceptions:review"]],
  ["post", "/api/v1/org/{orgId}/snooze-requests/{snoozeRequestId}/reopen", ["exceptions:write"]],
  ["get", "/api/v1/org/{orgId}/audit-events", ["audit:read"]],
  // branch scans and remediation (issue 7)
  ["get", "/api/v1/org/{orgId}/repositories/{repositoryId}/findings", ["repositories:read"]],
  ["get", "/api/v1/org/{orgId}/repositories/{repositoryId}/scans", ["repositories:read"]],
  ["post", "/api/v1/org/{orgId}/repositories/{repositoryId}/scans", ["repositories:manage"]],
  ["get", "/api/v1/org/{orgId}/repositories/{repositoryId}/remediation-requests", ["repositories:read"]],
  // the decision API (issue 18)
  ["post", "/api/v1/org/{orgId}/rpc", ["policy:read"]]
]

const eventTypes = [
  "service.policy_group.published",
  "service.policy_group.updated",
  "service.policy_mapping.created",
  "service.policy_mapping.updated",
  "service.policy_mapping.removed",
  "service.snooze_request.created",
  "service.snooze_request.reviewed",
  "service.snooze_request.status_changed",
  "service.snooze_request.reopened",
  "service.remediation_pull_request.created",
  "service.remediation_pull_request.failed",
  "service.webhook.test"
]

const permissions = [
  "policy:read",
  "mappings:write",
  "policy:publish",
  "vcs:read",
  "teams:read",
  "repositories:read",
  "repositories:manage",
  "assignments:manage",
  "exceptions:read",
  "exceptions:write",
  "exceptions:review",
  "webhooks:manage",
  "api-keys:manage",
  "audit:read",
  "reports:read",
  "organization:manage",
  "members:manage"
]

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

describe("OpenAPI document and event catalog", () => {
  let host: TestHost
  let doc: any
  beforeAll(async () => {
    host = await startTestHost()
    const answer = await host.request("GET", "/api/v1/openapi.json", { key: null })
    expect(answer.status).toBe(200)
    doc = answer.body
  })
  afterAll(() => host?.stop())

  const operations = (): Array<{ method: string; path: string; operation: any }> =>
    Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item).filter(([method]) => methods.includes(method)).map(([method, operation]) => ({ method, path, operation }))
    )
  const resolve = (schema: any): any =>
    schema?.$ref ? resolve(schema.$ref.split("/").slice(1).reduce((node: any, key: string) => node[key], doc)) : schema

  describe("GET /api/v1/openapi.json", () => {
    it("is served without a key as JSON, and with a wrong key too", async () => {
      const answer = await host.request("GET", "/api/v1/openapi.json", { key: null })
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
      expect((await host.request("GET", "/api/v1/openapi.json", { key: "junk-key-that-is-not-valid-0123456789" })).status).toBe(200)
    })

    it("is a valid OpenAPI 3.1 document", async () => {
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/)
      const validator = new Validator()
      const result = await validator.validate(structuredClone(doc))
      expect(result.errors ?? null, JSON.stringify(result.errors)).toBeNull()
      expect(result.valid).toBe(true)
      expect(validator.version).toBe("3.1")
    })

    it("names every route of spec section 4 with its exact path and method", () => {
      const present = new Set(operations().map(({ method, path }) => `${method} ${path}`))
      const missing = specRoutes.map(([method, path]) => `${method} ${path}`).filter((r) => !present.has(r))
      expect(missing).toEqual([])
      const missingExtras = contractRoutes.map(([method, path]) => `${method} ${path}`).filter((r) => !present.has(r))
      expect(missingExtras).toEqual([])
      // every path stays under the /api/v1 prefix (spec 9), but the health probes, which live at the root (issue 16)
      for (const { path } of operations()) {
        if (path !== "/healthz" && path !== "/readyz") expect(path.startsWith("/api/v1/")).toBe(true)
      }
    })

    it("every organization operation carries x-required-permissions of contracts 3 and the x-api-key or session cookie security", () => {
      const scheme = Object.entries<any>(doc.components.securitySchemes).find(([, s]) => s.type === "apiKey" && s.in === "header")
      expect(scheme).toBeDefined()
      const [schemeName, definition] = scheme!
      expect(definition).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" })
      // the web console's session cookie (issue 17): either scheme authenticates (OpenAPI: alternatives)
      const cookie = Object.entries<any>(doc.components.securitySchemes).find(([, s]) => s.type === "apiKey" && s.in === "cookie")
      expect(cookie).toBeDefined()
      const [cookieName, cookieDefinition] = cookie!
      expect(cookieDefinition).toMatchObject({ type: "apiKey", in: "cookie", name: "image_policy_session" })
      expect(cookieDefinition.description).toContain("x-csrf-token")

      const expected = new Map(
        [...specRoutes, ...contractRoutes].filter(([, , p]) => p !== null).map(([m, p, perms]) => [`${m} ${p}`, perms])
      )
      const orgOperations = operations().filter(({ path }) => path.startsWith("/api/v1/org/"))
      expect(orgOperations.length).toBeGreaterThanOrEqual(expected.size)
      for (const { method, operation, path } of orgOperations) {
        const required = operation["x-required-permissions"]
        expect(Array.isArray(required), `${method} ${path} has no x-required-permissions`).toBe(true)
        expect(required.length, `${method} ${path}`).toBeGreaterThan(0)
        for (const p of required) expect(permissions, `${method} ${path}`).toContain(p)
        const wanted = expected.get(`${method} ${path}`)
        if (wanted !== undefined) expect(required, `${method} ${path}`).toEqual(wanted)
        if (path.includes("/webhooks")) expect(required, `${method} ${path}`).toEqual(["webhooks:manage"])
        expect(operation.security, `${method} ${path}`).toEqual([{ [schemeName]: [] }, { [cookieName]: [] }])
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(["401", "403", "404", "429"]))
        // the org id is a path parameter of every organization route
        expect(operation.parameters.some((p: any) => p.in === "path" && p.name === "orgId" && p.required === true)).toBe(true)
      }
      expect(orgOperations.find((o) => o.method === "post" && o.path.endsWith("/publish"))!.operation["x-required-permissions"]).toEqual([
        "policy:publish"
      ])
    })

    it("every operation has a unique operationId, a summary, a description, tags and a 4xx problem; servers is set", () => {
      const ids = new Set<string>()
      for (const { method, operation, path } of operations()) {
        const where = `${method} ${path}`
        expect(typeof operation.operationId, where).toBe("string")
        expect(ids.has(operation.operationId), `${where} repeats ${operation.operationId}`).toBe(false)
        ids.add(operation.operationId)
        expect(operation.summary?.length, where).toBeGreaterThan(0)
        expect(operation.description?.length, where).toBeGreaterThan(0)
        expect(operation.tags?.length, where).toBeGreaterThan(0)
        // the document itself answers no problem; every other operation names its 4xx answers
        if (path !== "/api/v1/openapi.json" && path !== "/healthz") {
          expect(Object.keys(operation.responses).some((s) => s.startsWith("4")), where).toBe(true)
        }
      }
      // no public URL given: the address the host listens at
      expect(doc.servers).toEqual([{ url: host.url, description: expect.any(String) }])
    })

    it("servers names the public URL when one is given", async () => {
      const other = await startTestHost({ app: { publicUrl: "https://policy.example.com" } })
      try {
        const answer = await other.request("GET", "/api/v1/openapi.json", { key: null })
        expect(answer.body.servers.map((s: any) => s.url)).toEqual(["https://policy.example.com"])
      } finally {
        await other.stop()
      }
    })

    it("documents the statuses the routes answer", () => {
      const responses = (method: string, path: string) => Object.keys(doc.paths[path][method].responses)
      expect(responses("post", "/api/v1/org/{orgId}/policy-groups/{groupId}/phases/{phaseId}/mappings")).toEqual(
        expect.arrayContaining(["200", "201", "400", "409", "413"])
      )
      expect(responses("post", "/api/v1/org/{orgId}/repositories")).toEqual(expect.arrayContaining(["201", "400", "409", "413"]))
      expect(responses("post", "/api/v1/org/{orgId}/api-keys")).toEqual(expect.arrayContaining(["201", "400"]))
      expect(responses("post", "/api/v1/org/{orgId}/snooze-requests")).toEqual(expect.arrayContaining(["201", "400"]))
      expect(responses("post", "/api/v1/org/{orgId}/snooze-requests/{snoozeRequestId}/review")).toEqual(
        expect.arrayContaining(["200", "409"])
      )
      expect(responses("get", "/api/v1/event-types/{type}")).toEqual(expect.arrayContaining(["200", "404"]))
      expect(responses("post", "/api/v1/org/{orgId}/repositories/{repositoryId}/scans")).toEqual(
        expect.arrayContaining(["202", "400", "404", "413"])
      )
      expect(responses("get", "/api/v1/org/{orgId}/repositories/{repositoryId}/findings")).toEqual(
        expect.arrayContaining(["200", "400", "404"])
      )
    })

    it("every error answer is application/problem+json with the problem schema; 429 documents Retry-After", () => {
      for (const { method, operation, path } of operations()) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) < 400) {
            // the audit export (one audit event per line) and the decision API's RPC route (one RPC message per line) answer NDJSON
            const media = path.endsWith("/audit-events/export") || path.endsWith("/rpc") ? "application/x-ndjson" : "application/json"
            expect(Object.keys(response.content ?? { [media]: {} }), `${method} ${path} ${status}`).toEqual([media])
            continue
          }
          expect(Object.keys(response.content ?? {}), `${method} ${path} ${status}`).toEqual(["application/problem+json"])
          const schema = resolve(response.content["application/problem+json"].schema)
          expect(schema.required, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(["type", "title", "status", "detail"]))
          expect(resolve(schema.properties.errors)?.type).toBe("array")
          if (status === "429") expect(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase())).toContain("retry-after")
        }
      }
    })

    it("request bodies are JSON; the mapping body names its fields and the file-only ones", () => {
      for (const { method, operation, path } of operations()) {
        if (operation.requestBody === undefined) continue
        expect(Object.keys(operation.requestBody.content), `${method} ${path}`).toEqual(["application/json"])
      }
      const body = resolve(
        doc.paths["/api/v1/org/{orgId}/policy-groups/{groupId}/phases/{phaseId}/mappings"].post.requestBody.content["application/json"]
          .schema
      )
      expect(body.required).toEqual(expect.arrayContaining(["fromImage", "toImage"]))
      expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["fromImage", "toImage", "reason", "platformScope"]))
      const assign = resolve(
        doc.paths["/api/v1/org/{orgId}/repositories/{repositoryId}/policy-groups"].post.requestBody.content["application/json"].schema
      )
      expect(assign.required).toContain("assignments")
      const onboard = resolve(doc.paths["/api/v1/org/{orgId}/repositories"].post.requestBody.content["application/json"].schema)
      expect(onboard.required).toEqual(
        expect.arrayContaining(["vcsConnectionId", "externalRepoId", "assignedTeamId", "assignedRoutineId", "branchNames"])
      )
      const scans = resolve(
        doc.paths["/api/v1/org/{orgId}/repositories/{repositoryId}/scans"].post.requestBody.content["application/json"].schema
      )
      expect(scans).toMatchObject({ type: "object", properties: { branchNames: { type: "array" } }, additionalProperties: false })
      expect(scans.required ?? []).toEqual([])
    })

    it("describes the decision API's RPC route: its protocol, the request messages it takes and the messages it streams", () => {
      const operation = doc.paths["/api/v1/org/{orgId}/rpc"].post
      expect(operation.description).toMatch(/Effect RPC protocol over HTTP with NDJSON framing/)
      expect(operation.description).toContain("docs/decision-api.md")
      const body = resolve(operation.requestBody.content["application/json"].schema)
      const calls = (body.anyOf ?? body.oneOf).map(resolve)
      expect(calls.map((c: any) => c.properties.tag)).toEqual([{ type: "string", enum: ["Resolve"] }, {
        type: "string",
        enum: ["Explain"]
      }])
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "413", "429"]))
    })

    it("the document describes no internal field (secret hashes, service account ids, external versions)", () => {
      const text = JSON.stringify(doc)
      expect(text).not.toContain("secretHash")
      expect(text).not.toContain("lastVersion")
      expect(text).not.toContain("HttpApiDecodeError")
    })
  })

  describe("GET /api/v1/event-types", () => {
    it("lists every type of contracts 6 with family, description and a JSON Schema of its data, without a key", async () => {
      const answer = await host.request("GET", "/api/v1/event-types", { key: null })
      expect(answer.status).toBe(200)
      const items = answer.body.items as Array<any>
      expect(items.map((i) => i.type).sort()).toEqual([...eventTypes].sort())
      for (const item of items) {
        expect(item).toMatchObject({ type: expect.any(String), family: expect.any(String), description: expect.any(String) })
        expect(item.description.length).toBeGreaterThan(0)
        expect(item.family).toBe(
          item.type.startsWith("service.policy_") ?
            "policy"
            : item.type.startsWith("service.snooze_request.") ?
            "snooze"
            : item.type.startsWith("service.remediation_") ?
            "remediation"
            : "webhook"
        )
        expect(item.dataSchema.type).toBe("object")
        expect(typeof item.dataSchema.properties).toBe("object")
        expect(item.dataSchema.required).toEqual(expect.arrayContaining(["action", "changed_at"]))
      }
    })

    it("the created snooze event's data schema has exactly the spec 6 fields, previous_status nullable", async () => {
      const answer = await host.request("GET", "/api/v1/event-types/service.snooze_request.created", { key: null })
      expect(answer.status).toBe(200)
      expect(answer.body.type).toBe("service.snooze_request.created")
      expect(answer.body.family).toBe("snooze")
      const schema = answer.body.dataSchema
      expect(Object.keys(schema.properties).sort()).toEqual(
        ["action", "changed_at", "current_status", "previous_status", "repository_id", "snooze_request_id"]
      )
      expect(schema.required.sort()).toEqual(Object.keys(schema.properties).sort())
      expect(JSON.stringify(schema.properties.previous_status)).toContain("null")
    })

    it("GET /api/v1/event-types/{type} answers each catalog entry as listed", async () => {
      const list = (await host.request("GET", "/api/v1/event-types", { key: null })).body.items as Array<any>
      for (const item of list) {
        const one = await host.request("GET", `/api/v1/event-types/${item.type}`, { key: null })
        expect(one.status).toBe(200)
        expect(one.body).toEqual(item)
      }
    })

    it("an unknown type answers a 404 problem", async () => {
      expectProblem(await host.request("GET", "/api/v1/event-types/service.nope", { key: null }), 404, {
        type: "/problems/event-type-not-found"
      })
      expectProblem(await host.request("GET", `/api/v1/event-types/${"x".repeat(300)}`, { key: null }), 404)
    })
  })
})
