/**
 * Access over HTTP (spec 2 "API key", 3, 5, 7, 8; contracts 3, 4, 5): API key create, list and
 * revoke, the order of the authentication checks, and the audit trail, on the memory store and on
 * PostgreSQL.
 */
import { ApiKeyHash } from "@image-policy/adapters"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { expectNoLeak, expectProblem, memoryStore, postgresStore, type StoreFactory } from "./support/problem.js"

const DAY_MS = 86_400_000
const keysPath = "/api/v1/org/org_acme/api-keys"

const policyAutomation = [
  "policy:read",
  "mappings:write",
  "policy:publish",
  "vcs:read",
  "teams:read",
  "repositories:read",
  "repositories:manage",
  "assignments:manage"
]

const suite = (name: string, makeStore: StoreFactory) =>
  describe(`access over HTTP (${name})`, () => {
    let host: TestHost
    beforeAll(async () => {
      host = await startTestHost({ store: makeStore() })
    })
    afterAll(() => host?.stop())

    /** Every secret a create answer showed, checked against later answers. */
    const minted: Array<string> = []
    const createKey = async (body: unknown, key?: string) => {
      const answer = await host.request("POST", keysPath, { body, ...(key !== undefined ? { key } : {}) })
      if (answer.status === 201) minted.push(answer.body.secret)
      return answer
    }
    const listKeys = async () => {
      const answer = await host.request("GET", `${keysPath}?limit=200`)
      expect(answer.status).toBe(200)
      expectNoLeak(answer, minted)
      return answer.body.items as Array<any>
    }
    const groupsPath = (orgId = "org_acme") => `/api/v1/org/${orgId}/policy-groups`

    describe("API keys", () => {
      it("create answers 201 with the secret once; the secret works at once as x-api-key", async () => {
        const started = Date.now()
        const answer = await createKey({ name: "ci deploy", role: "Policy Automation", expiresInDays: 90 })
        expect(answer.status).toBe(201)
        expect(Object.keys(answer.body).sort()).toEqual(["expiresAt", "id", "name", "permissions", "prefix", "role", "secret"])
        expect(answer.body).toMatchObject({
          id: expect.any(String),
          name: "ci deploy",
          role: "Policy Automation",
          secret: expect.any(String)
        })
        expect([...answer.body.permissions].sort()).toEqual([...policyAutomation].sort())
        expect(answer.body.secret.length).toBeGreaterThanOrEqual(32)
        expect(answer.body.secret.startsWith(answer.body.prefix)).toBe(true)
        expect(answer.body.prefix.length).toBeLessThan(answer.body.secret.length)
        const expires = Date.parse(answer.body.expiresAt)
        expect(expires).toBeGreaterThanOrEqual(started + 90 * DAY_MS - 1000)
        expect(expires).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS + 1000)

        const used = await host.request("GET", groupsPath(), { key: answer.body.secret })
        expect(used.status).toBe(200)
        expect(used.body.items.length).toBe(3)
        // its role does not include key management
        expectProblem(await host.request("GET", keysPath, { key: answer.body.secret }), 403)
      })

      it("a key with explicit permissions has no role and exactly those permissions; null expiry is unlimited", async () => {
        const answer = await createKey({ name: "reader", permissions: ["policy:read", "policy:read"], expiresInDays: null })
        expect(answer.status).toBe(201)
        expect(answer.body).not.toHaveProperty("role")
        expect(answer.body.permissions).toEqual(["policy:read"])
        expect(answer.body.expiresAt).toBeNull()
        expect((await host.request("GET", groupsPath(), { key: answer.body.secret })).status).toBe(200)
        const base = host.org.policyGroups["Base images"]!
        expectProblem(
          await host.request("POST", `${groupsPath()}/${base.id}/phases/${base.phases["Curated"]}/mappings`, {
            key: answer.body.secret,
            body: { fromImage: "nginx:1", toImage: "nginx:1.25.3" }
          }),
          403,
          { type: "/problems/permission-denied" }
        )
      })

      it("every create secret is new", async () => {
        const a = await createKey({ name: "twin", role: "Read Only", expiresInDays: 30 })
        const b = await createKey({ name: "twin", role: "Read Only", expiresInDays: 30 })
        expect(a.status).toBe(201)
        expect(b.status).toBe(201)
        expect(a.body.id).not.toBe(b.body.id)
        expect(a.body.secret).not.toBe(b.body.secret)
      })

      it("the list never shows a secret nor its hash, and shows status, revokedAt, lastUsedAt and createdAt", async () => {
        const created = await createKey({ name: "listed", role: "Read Only", expiresInDays: 30 })
        expect(created.status).toBe(201)
        const items = await listKeys()
        const names = items.map((k) => k.name)
        expect(names).toEqual(expect.arrayContaining(["owner", "automation", "read-only", "drafts-only", "listed"]))
        // other organizations' keys are not listed
        expect(items.every((k) => !Object.values(host.ids[1]!.apiKeys).includes(k.id))).toBe(true)
        for (const item of items) {
          expect(item).not.toHaveProperty("secret")
          expect(item).not.toHaveProperty("secretHash")
          expect(item).not.toHaveProperty("serviceAccountId")
          expect(item).toMatchObject({
            id: expect.any(String),
            name: expect.any(String),
            prefix: expect.any(String),
            permissions: expect.any(Array),
            status: expect.stringMatching(/^(active|expired|revoked)$/),
            createdAt: expect.any(String)
          })
          expect(item).toHaveProperty("revokedAt")
          expect(item).toHaveProperty("lastUsedAt")
          expect(item).toHaveProperty("expiresAt")
          for (const value of Object.values(item)) {
            if (typeof value === "string") expect(value).not.toMatch(/^[0-9a-f]{64}$|^\$|argon|scrypt|pbkdf/i)
          }
        }
        // nor the stored hash of any secret
        const text = (await host.request("GET", `${keysPath}?limit=200`)).text
        for (const secret of [...Object.values(secrets), ...minted]) {
          expect(text).not.toContain(await Effect.runPromise(ApiKeyHash.hashSecret(secret)))
        }
        const listed = items.find((k) => k.id === created.body.id)
        expect(listed).toMatchObject({ name: "listed", role: "Read Only", status: "active", revokedAt: null, lastUsedAt: null })
        expect(listed.prefix).toBe(created.body.prefix)
        expect(listed.expiresAt).toBe(created.body.expiresAt)
      })

      it("lastUsedAt records that a key was used", async () => {
        const created = await createKey({ name: "used", role: "Read Only", expiresInDays: 30 })
        const before = Date.now()
        expect((await host.request("GET", groupsPath(), { key: created.body.secret })).status).toBe(200)
        const listed = (await listKeys()).find((k) => k.id === created.body.id)
        expect(listed.lastUsedAt).not.toBeNull()
        expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(before - 1000)
      })

      it("revoke keeps the metadata, marks the key revoked, and the key answers 401 right after", async () => {
        const created = await createKey({ name: "to revoke", role: "Policy Automation", expiresInDays: 30 })
        expect((await host.request("GET", groupsPath(), { key: created.body.secret })).status).toBe(200)
        const revoked = await host.request("POST", `${keysPath}/${created.body.id}/revoke`)
        expect(revoked.status).toBe(200)
        expect(revoked.body).toMatchObject({
          id: created.body.id,
          name: "to revoke",
          prefix: created.body.prefix,
          role: "Policy Automation",
          status: "revoked",
          revokedAt: expect.any(String),
          expiresAt: created.body.expiresAt
        })
        expect(revoked.body).not.toHaveProperty("secret")
        expectProblem(await host.request("GET", groupsPath(), { key: created.body.secret }), 401)
        const listed = (await listKeys()).find((k) => k.id === created.body.id)
        expect(listed).toEqual(revoked.body)
        // revoking again changes nothing
        const again = await host.request("POST", `${keysPath}/${created.body.id}/revoke`)
        expect(again.status).toBe(200)
        expect(again.body.revokedAt).toBe(revoked.body.revokedAt)
      })

      it("revoking an unknown key or another organization's key answers 404 and changes nothing", async () => {
        expectProblem(await host.request("POST", `${keysPath}/key_unknown/revoke`), 404, { type: "/problems/api-key-not-found" })
        const globexOwner = host.ids[1]!.apiKeys["owner"]!
        expectProblem(await host.request("POST", `${keysPath}/${globexOwner}/revoke`), 404)
        expect((await host.request("GET", "/api/v1/org/org_globex/policy-groups", { key: secrets.otherOrg })).status).toBe(200)
      })

      it("expiresInDays must be 1..365 or null: 0, 366, 30.5, a string and a missing value are 400 naming it", async () => {
        for (const expiresInDays of [0, 366, 30.5, -1, "30", undefined]) {
          const body: Record<string, unknown> = { name: "bad expiry", role: "Read Only" }
          if (expiresInDays !== undefined) body.expiresInDays = expiresInDays
          expectProblem(await createKey(body), 400, { paths: ["expiresInDays"] })
        }
        for (const expiresInDays of [1, 365]) {
          expect((await createKey({ name: "edge expiry", role: "Read Only", expiresInDays })).status).toBe(201)
        }
      })

      it("refuses an unknown role, an unknown or empty permission set, both or neither access model, and a missing name", async () => {
        expectProblem(await createKey({ name: "x", role: "Superuser", expiresInDays: 30 }), 400)
        expectProblem(await createKey({ name: "x", permissions: ["policy:write"], expiresInDays: 30 }), 400)
        expectProblem(await createKey({ name: "x", permissions: [], expiresInDays: 30 }), 400)
        expectProblem(await createKey({ name: "x", expiresInDays: 30 }), 400)
        expectProblem(await createKey({ name: "x", role: "Read Only", permissions: ["api-keys:manage"], expiresInDays: 30 }), 400)
        expectProblem(await createKey({ role: "Read Only", expiresInDays: 30 }), 400, { paths: ["name"] })
        expectProblem(await createKey({ name: "   ", role: "Read Only", expiresInDays: 30 }), 400, { paths: ["name"] })
        expect((await listKeys()).some((k) => k.name === "x")).toBe(false)
      })

      it("text no store can hold is refused: a NUL in the name is a 400 naming it, an id with a NUL a 404", async () => {
        expectProblem(await createKey({ name: "ci\u0000", role: "Read Only", expiresInDays: 30 }), 400, { paths: ["name"] })
        expectProblem(await createKey({ name: "ci \udc00", role: "Read Only", expiresInDays: 30 }), 400, { paths: ["name"] })
        expectProblem(await host.request("POST", `${keysPath}/%00/revoke`), 404)
        expectProblem(await host.request("POST", `${keysPath}/key_%00/revoke`), 404)
        expect((await listKeys()).some((k) => k.name.includes("\u0000") || k.name.includes("\udc00"))).toBe(false)
      })

      it("keys without api-keys:manage cannot create, list or revoke keys (403)", async () => {
        const before = await listKeys()
        for (const key of [secrets.automation, secrets.readOnly, secrets.draftsOnly]) {
          expectProblem(await createKey({ name: "escalate", role: "Owner", expiresInDays: null }, key), 403, {
            type: "/problems/permission-denied"
          })
          expectProblem(await host.request("GET", keysPath, { key }), 403)
          expectProblem(await host.request("POST", `${keysPath}/${host.org.apiKeys["owner"]}/revoke`, { key }), 403)
        }
        // nothing was created or revoked (using the keys only moved their lastUsedAt)
        const withoutUse = (items: Array<any>) => items.map(({ lastUsedAt: _, ...rest }) => rest)
        expect(withoutUse(await listKeys())).toEqual(withoutUse(before))
        expect((await host.request("GET", groupsPath())).status).toBe(200)
      })
    })

    describe("authentication order (contracts 4)", () => {
      it("401 for a missing header, an empty header, an unknown key and a revoked key", async () => {
        expectProblem(await host.request("GET", groupsPath(), { key: null }), 401, { type: "/problems/unauthenticated" })
        expectProblem(await host.request("GET", groupsPath(), { key: "" }), 401)
        expectProblem(await host.request("GET", groupsPath(), { key: "short" }), 401)
        expectProblem(await host.request("GET", groupsPath(), { key: "unknown-secret-0123456789abcdefghijklmnopqrstuv" }), 401)
        expectProblem(await host.request("GET", groupsPath(), { key: `${secrets.owner}x` }), 401)
        const created = await createKey({ name: "revoked", role: "Owner", expiresInDays: 30 })
        await host.request("POST", `${keysPath}/${created.body.id}/revoke`)
        const revoked = expectProblem(await host.request("GET", groupsPath(), { key: created.body.secret }), 401)
        // the answer never says why, so a caller cannot probe which keys exist
        const unknown = (await host.request("GET", groupsPath(), { key: "unknown-secret-0123456789abcdefghijklmnopqrstuv" })).body
        expect(revoked.detail).toBe(unknown.detail)
      })

      it("404 for another organization's path or an unknown organization, 403 for an edition without the Automation API", async () => {
        expectProblem(await host.request("GET", groupsPath("org_acme"), { key: secrets.otherOrg }), 404)
        expectProblem(await host.request("GET", groupsPath("org_doesnotexist")), 404)
        expectProblem(await host.request("GET", groupsPath("org_free"), { key: secrets.freeEdition }), 403, {
          type: "/problems/automation-api-not-included"
        })
        // a free organization with an active automation-api grant may use the API
        const granted = await host.request("GET", groupsPath("org_granted"), { key: secrets.grantOrg })
        expect(granted.status).toBe(200)
        expect(granted.body.items).toEqual([])
      })

      it("403 for a missing permission", async () => {
        expectProblem(await host.request("GET", "/api/v1/org/org_acme/audit-events", { key: secrets.automation }), 403, {
          type: "/problems/permission-denied"
        })
        expectProblem(await host.request("GET", "/api/v1/org/org_acme/snooze-requests", { key: secrets.draftsOnly }), 403)
      })

      it("401 beats 404 beats 403 when several checks fail", async () => {
        // unknown key + foreign org + missing permission -> 401
        expectProblem(
          await host.request("POST", "/api/v1/org/org_globex/api-keys", {
            key: "unknown-secret-0123456789abcdefghijklmnopqrstuv",
            body: { name: "x", role: "Owner", expiresInDays: 1 }
          }),
          401
        )
        // no key on an unknown organization and an unknown resource -> 401
        expectProblem(await host.request("GET", `${groupsPath("org_nope")}/pg_nope/details`, { key: null }), 401)
        // foreign org + missing permission -> 404 (not 403)
        expectProblem(
          await host.request("POST", "/api/v1/org/org_globex/api-keys", {
            key: secrets.readOnly,
            body: { name: "x", role: "Owner", expiresInDays: 1 }
          }),
          404
        )
        // edition gate + foreign org -> 404 (the key's own org is free, the path is another org)
        expectProblem(await host.request("GET", groupsPath("org_acme"), { key: secrets.freeEdition }), 404)
        // edition gate + unknown resource in the path -> 403 (the path's resource is checked last)
        expectProblem(await host.request("GET", `${groupsPath("org_free")}/pg_nope/details`, { key: secrets.freeEdition }), 403)
        // missing permission + invalid body + unknown resource -> 403
        expectProblem(await host.request("POST", `${groupsPath()}/pg_nope/publish`, { key: secrets.readOnly }), 403)
        expectProblem(await host.request("POST", keysPath, { key: secrets.automation, body: { nonsense: true } }), 403)
        // valid key, invalid body -> 400 before the 404 of an unknown resource
        expectProblem(await host.request("POST", `${groupsPath()}/pg_nope/phases/ph_nope/mappings`, { body: { fromImage: 1 } }), 400)
      })
    })

    describe("audit trail", () => {
      it("lists mutating calls newest first with who, what, which resource, outcome and when; no secret in it", async () => {
        const start = new Date(Date.now() - 1000).toISOString()
        const created = await createKey({ name: "audited", role: "Read Only", expiresInDays: 30 })
        expect(created.status).toBe(201)
        const base = host.org.policyGroups["Base images"]!
        const mapping = await host.request("POST", `${groupsPath()}/${base.id}/phases/${base.phases["Curated"]}/mappings`, {
          key: secrets.draftsOnly,
          body: { fromImage: "audited/image:1", toImage: "registry.acme.test/audited/image:1.0.1", reason: `not a secret` }
        })
        expect(mapping.status).toBe(201)
        const revoked = await host.request("POST", `${keysPath}/${created.body.id}/revoke`)
        expect(revoked.status).toBe(200)
        // reads are not audited
        await host.request("GET", groupsPath())

        const answer = await host.request("GET", "/api/v1/org/org_acme/audit-events?limit=200")
        expect(answer.status).toBe(200)
        expectNoLeak(answer, minted)
        expect(answer.text).not.toContain(created.body.secret)
        expect(answer.text).not.toContain(await Effect.runPromise(ApiKeyHash.hashSecret(created.body.secret)))
        const items = answer.body.items as Array<any>
        const ats = items.map((e) => e.at)
        expect([...ats].sort().reverse()).toEqual(ats)

        const recent = items.filter((e) => e.at >= start)
        expect(recent.slice(0, 3).map((e) => [e.action, e.resourceType, e.resourceId])).toEqual([
          ["api_key.revoke", "api_key", created.body.id],
          ["mapping.created", "policy_mapping", mapping.body.id],
          ["api_key.create", "api_key", created.body.id]
        ])
        const ownerId = host.org.apiKeys["owner"]!
        const draftsId = host.org.apiKeys["drafts-only"]!
        expect(recent[0]).toMatchObject({
          id: expect.any(String),
          actor: { kind: "apiKey", apiKeyId: ownerId, serviceAccountId: expect.any(String) },
          outcome: "success",
          at: expect.any(String)
        })
        expect(recent[1].actor).toMatchObject({ kind: "apiKey", apiKeyId: draftsId })
        expect(recent[1].actor.serviceAccountId).not.toBe(recent[0].actor.serviceAccountId)
        expect(Date.parse(recent[0].at)).toBeGreaterThanOrEqual(Date.parse(start))
        expect(items.some((e) => e.action.startsWith("get") || e.action.includes("list"))).toBe(false)
      })

      it("pages with the returned cursor, newest first across pages", async () => {
        const first = await host.request("GET", "/api/v1/org/org_acme/audit-events?limit=2")
        expect(first.status).toBe(200)
        expect(first.body.items).toHaveLength(2)
        expect(typeof first.body.nextCursor).toBe("string")
        const second = await host.request(
          "GET",
          `/api/v1/org/org_acme/audit-events?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`
        )
        expect(second.status).toBe(200)
        const all = (await host.request("GET", "/api/v1/org/org_acme/audit-events?limit=4")).body.items
        expect([...first.body.items, ...second.body.items]).toEqual(all)
        expectProblem(await host.request("GET", "/api/v1/org/org_acme/audit-events?cursor=not-a-cursor"), 400, { paths: ["cursor"] })
      })

      it("another organization's audit trail is its own", async () => {
        const answer = await host.request("GET", "/api/v1/org/org_globex/audit-events", { key: secrets.otherOrg })
        expect(answer.status).toBe(200)
        expect(answer.body.items).toEqual([])
      })
    })
  })

suite("memory", memoryStore)

await pgDescribe("http-access", (url) => {
  suite("postgres", postgresStore(url))
})
