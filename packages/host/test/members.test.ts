/**
 * Members and custom roles over HTTP (issue 15): routes, statuses, problems and audit rows; custom
 * roles on API keys resolved at request time; nobody grants more than they hold; creating webhooks
 * needs Owner or Security Administrator by role. On the memory store and PostgreSQL.
 */
import { MemoryStore } from "@image-policy/adapters"
import { describe, expect, it } from "vitest"
import { secrets, type TestHost } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore, readAllPages, useHost } from "./support/suites.js"

const api = "/api/v1/org/org_acme"
const builtIns = ["Owner", "Security Administrator", "Policy Automation", "Read Only"]

/** Creates an API key with `access` (owner key) and answers its secret. */
const keyWith = async (host: TestHost, access: Record<string, unknown>): Promise<string> => {
  const body = expectJson(
    await host.request("POST", `${api}/api-keys`, { body: { name: `k-${Math.random()}`, expiresInDays: 1, ...access } }),
    201
  )
  return body.secret
}

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`members and roles (${storeName})`, () => {
    const host = useHost(makeStore)

    describe("roles", () => {
      it("lists the four built-in roles first, read only, then custom roles by name, page by page", async () => {
        const first = expectJson(await host().request("GET", `${api}/roles`), 200)
        expect(first.items.map((r: any) => r.id)).toEqual(builtIns)
        expect(first.items.every((r: any) => r.builtIn === true && r.name === r.id && r.createdAt === null)).toBe(true)
        expect(first.items[0].permissions).toContain("members:manage")
        expect(first.items[1].permissions).not.toContain("members:manage")
        expect(first.items[1].permissions).not.toContain("api-keys:manage")
        expect(first.nextCursor).toBeUndefined()
        for (const name of ["zeta", "Alpha", "mid"]) {
          expectJson(await host().request("POST", `${api}/roles`, { body: { name, permissions: ["policy:read"] } }), 201)
        }
        for (const limit of [1, 3, 4, 5, 7, 50]) {
          const { items } = await readAllPages(host(), `${api}/roles`, { limit })
          expect(items.map((r: any) => r.name), `limit ${limit}`).toEqual([...builtIns, "Alpha", "mid", "zeta"])
        }
        expectProblem(await host().request("GET", `${api}/roles?cursor=junk`), 400, { paths: ["cursor"] })
      })

      it("creates, renames and re-permissions a custom role; names are unique ignoring case, built-in names too", async () => {
        const created = expectJson(
          await host().request("POST", `${api}/roles`, {
            body: { name: " Auditors ", permissions: ["audit:read", "policy:read", "audit:read"] }
          }),
          201
        )
        expect(created).toMatchObject({ name: "Auditors", builtIn: false, permissions: ["policy:read", "audit:read"] })
        expect(created.id).toMatch(/^role_/)
        expectProblem(await host().request("POST", `${api}/roles`, { body: { name: "AUDITORS", permissions: ["policy:read"] } }), 409, {
          type: "/problems/role-name-taken",
          paths: ["name"]
        })
        expectProblem(await host().request("POST", `${api}/roles`, { body: { name: "read only", permissions: ["policy:read"] } }), 409, {
          paths: ["name"]
        })
        expectProblem(await host().request("POST", `${api}/roles`, { body: { name: "x", permissions: [] } }), 400, {
          paths: ["permissions[0]"]
        })
        expectProblem(await host().request("POST", `${api}/roles`, { body: { name: "x", permissions: ["root"] } }), 400, {
          paths: ["permissions[0]"]
        })
        const renamed = expectJson(
          await host().request("PATCH", `${api}/roles/${created.id}`, { body: { name: "Auditors (all)", permissions: ["audit:read"] } }),
          200
        )
        expect(renamed).toMatchObject({ id: created.id, name: "Auditors (all)", permissions: ["audit:read"] })
        expectProblem(await host().request("PATCH", `${api}/roles/${created.id}`, { body: { name: "Zeta" } }), 409, { paths: ["name"] })
        expectProblem(await host().request("PATCH", `${api}/roles/Owner`, { body: { name: "Boss" } }), 409, {
          type: "/problems/built-in-role-read-only"
        })
        expectProblem(await host().request("DELETE", `${api}/roles/Read%20Only`), 409, { type: "/problems/built-in-role-read-only" })
        expectProblem(await host().request("PATCH", `${api}/roles/role_00000000000000000000000000`, { body: { name: "y" } }), 404)
        expectProblem(await host().request("DELETE", `${api}/roles/role_00000000000000000000000000`), 404)
        const rows = await auditRows(host())
        expect(rows.filter((r) => r.resourceId === created.id).map((r) => r.action)).toEqual(
          expect.arrayContaining(["role.create", "role.update", "updateRole"])
        )
      })

      it("needs members:manage: a Security Administrator, Read Only or Policy Automation key gets 403", async () => {
        const securityAdministrator = await keyWith(host(), { role: "Security Administrator" })
        for (const key of [securityAdministrator, secrets.readOnly, secrets.automation]) {
          expectProblem(await host().request("GET", `${api}/roles`, { key }), 403)
          expectProblem(
            await host().request("POST", `${api}/members`, { key, body: { email: "x@example.com", name: "X", role: "Read Only" } }),
            403
          )
        }
      })
    })

    describe("custom roles on API keys", () => {
      it("a key names a custom role by id; the role's permissions are read at every request", async () => {
        const role = expectJson(
          await host().request("POST", `${api}/roles`, { body: { name: "Readers", permissions: ["teams:read"] } }),
          201
        )
        const created = expectJson(
          await host().request("POST", `${api}/api-keys`, { body: { name: "readers", role: role.id, expiresInDays: 30 } }),
          201
        )
        expect(created).toMatchObject({ role: role.id, permissions: ["teams:read"] })
        const key = created.secret
        expectJson(await host().request("GET", `${api}/teams`, { key }), 200)
        expectProblem(await host().request("GET", `${api}/policy-groups`, { key }), 403)
        // an edit counts at once
        expectJson(await host().request("PATCH", `${api}/roles/${role.id}`, { body: { permissions: ["policy:read"] } }), 200)
        expectJson(await host().request("GET", `${api}/policy-groups`, { key }), 200)
        expectProblem(await host().request("GET", `${api}/teams`, { key }), 403)
        const listed = (await readAllPages(host(), `${api}/api-keys`, { limit: 200 })).items.find((k: any) => k.id === created.id)
        expect(listed).toMatchObject({ role: role.id, permissions: ["policy:read"] })
        // in use: the role cannot be deleted while the key is active; revoked, it can
        expectProblem(await host().request("DELETE", `${api}/roles/${role.id}`), 409, { type: "/problems/role-in-use" })
        expectJson(await host().request("POST", `${api}/api-keys/${created.id}/revoke`), 200)
        expect((await host().request("DELETE", `${api}/roles/${role.id}`)).status).toBe(204)
        expectProblem(await host().request("DELETE", `${api}/roles/${role.id}`), 404)
        // built-in names keep working; an unknown custom role is a 400 naming `role`
        expectJson(await host().request("POST", `${api}/api-keys`, { body: { name: "ro", role: "Read Only", expiresInDays: 30 } }), 201)
        expectProblem(
          await host().request("POST", `${api}/api-keys`, {
            body: { name: "ghost", role: "role_00000000000000000000000000", expiresInDays: 30 }
          }),
          400,
          { paths: ["role"] }
        )
        expectProblem(await host().request("POST", `${api}/api-keys`, { body: { name: "typo", role: "Ownr", expiresInDays: 30 } }), 400, {
          paths: ["role"]
        })
      })

      it("nobody grants more than they hold: not to a new role, not to their own role", async () => {
        const role = expectJson(
          await host().request("POST", `${api}/roles`, { body: { name: "Delegates", permissions: ["members:manage", "policy:read"] } }),
          201
        )
        const key = await keyWith(host(), { role: role.id })
        const refused = expectProblem(
          await host().request("POST", `${api}/roles`, {
            key,
            body: { name: "Everything", permissions: ["policy:read", "api-keys:manage"] }
          }),
          403,
          { type: "/problems/permission-not-grantable", paths: ["permissions"] }
        )
        expect(refused.detail).toContain("api-keys:manage")
        expectProblem(
          await host().request("PATCH", `${api}/roles/${role.id}`, { key, body: { permissions: ["members:manage", "webhooks:manage"] } }),
          403
        )
        expectProblem(
          await host().request("POST", `${api}/members`, { key, body: { email: "boss@example.com", name: "Boss", role: "Owner" } }),
          403,
          {
            paths: ["role"]
          }
        )
        expectJson(
          await host().request("POST", `${api}/roles`, { key, body: { name: "Policy readers", permissions: ["policy:read"] } }),
          201
        )
        expectJson(
          await host().request("POST", `${api}/members`, {
            key,
            body: { email: "reader@example.com", name: "Reader", permissions: ["policy:read"] }
          }),
          201
        )
        // the role is unchanged by the refused edit
        const listed = (await readAllPages(host(), `${api}/roles`)).items.find((r: any) => r.id === role.id)
        expect(listed.permissions).toEqual(["policy:read", "members:manage"])
      })
    })

    describe("members", () => {
      it("adds, reads, lists, edits, disables and removes members; audited without the email", async () => {
        const ada = expectJson(
          await host().request("POST", `${api}/members`, { body: { email: " Ada@Example.com ", name: "Ada", role: "Policy Automation" } }),
          201
        )
        expect(ada).toMatchObject({ email: "Ada@Example.com", name: "Ada", role: "Policy Automation", disabled: false })
        expect(ada.id).toMatch(/^mbr_/)
        expect(ada.permissions).toContain("policy:publish")
        expectProblem(
          await host().request("POST", `${api}/members`, { body: { email: "ada@EXAMPLE.com", name: "Ada 2", role: "Read Only" } }),
          409,
          {
            type: "/problems/member-email-taken",
            paths: ["email"]
          }
        )
        expectProblem(
          await host().request("POST", `${api}/members`, { body: { email: "not-an-email", name: "X", role: "Read Only" } }),
          400,
          { paths: ["email"] }
        )
        expectProblem(
          await host().request("POST", `${api}/members`, {
            body: { email: "x@example.com", name: "X", role: "Owner", permissions: ["policy:read"] }
          }),
          400
        )
        expectProblem(
          await host().request("POST", `${api}/members`, {
            body: { email: "x@example.com", name: "X", role: "role_00000000000000000000000000" }
          }),
          400,
          { paths: ["role"] }
        )
        expect(expectJson(await host().request("GET", `${api}/members/${ada.id}`), 200)).toEqual(ada)
        const bob = expectJson(
          await host().request("POST", `${api}/members`, { body: { email: "bob@example.com", name: "Bob", permissions: ["audit:read"] } }),
          201
        )
        expect(bob.role).toBeUndefined()
        const { items, pages } = await readAllPages(host(), `${api}/members`, { limit: 1 })
        expect(items.map((m: any) => m.id)).toEqual(expect.arrayContaining([ada.id, bob.id]))
        expect(pages).toBeGreaterThanOrEqual(2)

        const disabled = expectJson(await host().request("PATCH", `${api}/members/${ada.id}`, { body: { disabled: true } }), 200)
        expect(disabled).toMatchObject({ disabled: true, role: "Policy Automation" })
        const role = expectJson(
          await host().request("POST", `${api}/roles`, { body: { name: "Member role", permissions: ["reports:read"] } }),
          201
        )
        const moved = expectJson(
          await host().request("PATCH", `${api}/members/${bob.id}`, { body: { name: "Robert", role: role.id } }),
          200
        )
        expect(moved).toMatchObject({ name: "Robert", role: role.id, permissions: ["reports:read"] })
        expectProblem(await host().request("DELETE", `${api}/roles/${role.id}`), 409, { type: "/problems/role-in-use" })
        const back = expectJson(await host().request("PATCH", `${api}/members/${bob.id}`, { body: { permissions: ["audit:read"] } }), 200)
        expect(back.role).toBeUndefined()
        expect((await host().request("DELETE", `${api}/roles/${role.id}`)).status).toBe(204)
        expectProblem(await host().request("PATCH", `${api}/members/${bob.id}`, { body: { email: "new@example.com" } }), 400, {
          paths: ["email"]
        })

        expect((await host().request("DELETE", `${api}/members/${ada.id}`)).status).toBe(204)
        expectProblem(await host().request("GET", `${api}/members/${ada.id}`), 404)
        expectProblem(await host().request("DELETE", `${api}/members/${ada.id}`), 404)
        expectProblem(await host().request("PATCH", `${api}/members/mbr_00000000000000000000000000`, { body: { name: "x" } }), 404)
        // the address is free again
        expectJson(
          await host().request("POST", `${api}/members`, { body: { email: "ADA@example.com", name: "Ada", role: "Read Only" } }),
          201
        )

        const rows = await auditRows(host())
        const actions = (id: string) =>
          rows.filter((r) => r.resourceType === "member" && r.resourceId === id).map((r) => r.action).reverse()
        expect(actions(ada.id)).toEqual(["member.create", "member.disable", "member.delete"])
        expect(actions(bob.id)).toEqual(["member.create", "member.update", "member.update"])
        expect(rows.some((r) => r.action === "createMember" && r.outcome === "rejected" && r.detail === "/problems/member-email-taken"))
          .toBe(true)
        expect(JSON.stringify(rows).toLowerCase()).not.toContain("ada@example.com")
      })

      it("another organization's members are not found", async () => {
        const ada = expectJson(
          await host().request("POST", `${api}/members`, { body: { email: "cy@example.com", name: "Cy", role: "Read Only" } }),
          201
        )
        expectProblem(await host().request("GET", `/api/v1/org/org_globex/members/${ada.id}`, { key: secrets.otherOrg }), 404)
        expect(expectJson(await host().request("GET", "/api/v1/org/org_globex/members", { key: secrets.otherOrg }), 200).items).toEqual([])
        // the same email is free in another organization
        expectJson(
          await host().request("POST", "/api/v1/org/org_globex/members", {
            key: secrets.otherOrg,
            body: { email: "cy@example.com", name: "Cy", role: "Owner" }
          }),
          201
        )
      })
    })

    describe("creating webhooks needs Owner or Security Administrator by role", () => {
      const body = {
        name: "hook",
        type: "generic",
        endpointUrl: "https://hooks.example.com/x",
        scope: { kind: "organization" },
        events: ["service.webhook.test"]
      }

      it("a custom role or an explicit set holding webhooks:manage may list but not create or re-point", async () => {
        const role = expectJson(
          await host().request("POST", `${api}/roles`, { body: { name: "Hooks", permissions: ["webhooks:manage"] } }),
          201
        )
        for (const key of [await keyWith(host(), { role: role.id }), await keyWith(host(), { permissions: ["webhooks:manage"] })]) {
          expectJson(await host().request("GET", `${api}/webhooks`, { key }), 200)
          expectProblem(await host().request("POST", `${api}/webhooks`, { key, body }), 403, { type: "/problems/role-required" })
          expectProblem(
            await host().request("PUT", `${api}/webhooks/wh_00000000000000000000000000/endpoint`, {
              key,
              body: { endpointUrl: body.endpointUrl }
            }),
            403,
            {
              type: "/problems/role-required"
            }
          )
        }
      })

      it("Owner and Security Administrator pass the role check", async () => {
        const securityAdministrator = await keyWith(host(), { role: "Security Administrator" })
        for (const key of [secrets.owner, securityAdministrator]) {
          // past authentication: the body is read (this host refuses non-public targets: 400, not 403)
          const answer = await host().request("POST", `${api}/webhooks`, { key, body: { ...body, events: ["nope"] } })
          expectProblem(answer, 400, { paths: ["events[0]"] })
        }
      })
    })
  })

describe("members and roles in the OpenAPI document", () => {
  const host = useHost(() => MemoryStore.layer)

  it("every route has a summary and needs members:manage; webhook creation also names its roles", async () => {
    const doc = expectJson(await host().request("GET", "/api/v1/openapi.json", { key: null }), 200)
    const ours = [
      ["get", "/members"],
      ["post", "/members"],
      ["get", "/members/{memberId}"],
      ["patch", "/members/{memberId}"],
      ["delete", "/members/{memberId}"],
      ["get", "/roles"],
      ["post", "/roles"],
      ["patch", "/roles/{roleId}"],
      ["delete", "/roles/{roleId}"]
    ] as const
    for (const [method, path] of ours) {
      const operation = doc.paths[`/api/v1/org/{orgId}${path}`]?.[method]
      expect(operation, `${method} ${path}`).toBeDefined()
      expect(operation.summary, `${method} ${path}`).toMatch(/\w/)
      expect(operation["x-required-permissions"]).toEqual(["members:manage"])
    }
    for (const [method, path] of [["post", "/webhooks"], ["put", "/webhooks/{webhookId}/endpoint"]] as const) {
      const operation = doc.paths[`/api/v1/org/{orgId}${path}`][method]
      expect(operation["x-required-permissions"]).toEqual(["webhooks:manage"])
      expect(operation["x-required-roles"]).toEqual(["Owner", "Security Administrator"])
    }
    expect(doc.paths["/api/v1/org/{orgId}/webhooks"].get["x-required-roles"]).toBeUndefined()
  })
})

await onEveryStore("members", suite, { pglite: true })
