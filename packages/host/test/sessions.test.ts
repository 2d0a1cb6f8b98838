/**
 * Browser sessions over HTTP (issue 17; docs/sessions.md): sign-in, the cookie, who am I, sign-out,
 * the cookie on organization routes in the order of contracts 4 (as API keys, less the edition gate),
 * CSRF, audit rows. Expiry and throttling: sessionsExpiry.test.ts.
 */
import { describe, expect, it } from "vitest"
import { secrets } from "./support/harness.js"
import { passwords, sessionHost, signIn, withCookie } from "./support/sessions.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore } from "./support/suites.js"

const acme = "/api/v1/org/org_acme"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`sessions (${storeName})`, () => {
    const host = sessionHost(makeStore)

    it("signs in with the right password: the session, and an HttpOnly, SameSite=Lax cookie on / (not Secure over http)", async () => {
      const signed = await signIn(host(), "ADA@acme.example", passwords.owner)
      expect(signed.body).toMatchObject({
        user: { email: "ada@acme.example", name: "Ada", role: "Owner" },
        organization: { id: "org_acme", name: "Acme", edition: "enterprise" }
      })
      expect(signed.body.user.id).toMatch(/^mbr_/)
      expect(signed.body.permissions).toContain("members:manage")
      expect(signed.body.csrfToken).toMatch(/^[0-9a-f]{64}$/)
      expect(Date.parse(signed.body.expiresAt) - Date.now()).toBeGreaterThan(6 * 86_400_000)
      expect(Date.parse(signed.body.idleExpiresAt) - Date.now()).toBeGreaterThan(11 * 3_600_000)
      expect(signed.setCookie).toMatch(/^image_policy_session=[0-9a-f]{64};/)
      expect(signed.setCookie).toMatch(/; HttpOnly/i)
      expect(signed.setCookie).toMatch(/; SameSite=Lax/i)
      expect(signed.setCookie).toMatch(/; Path=\//)
      expect(signed.setCookie).not.toMatch(/; Secure/i)
      // the cookie is not the CSRF token, and the body does not hold the cookie's token
      expect(signed.cookie.split("=")[1]).not.toBe(signed.csrf)
      expect(JSON.stringify(signed.body)).not.toContain(signed.cookie.split("=")[1])
      const me = expectJson(await host().request("GET", "/api/v1/session", withCookie(signed)), 200)
      expect(me).toMatchObject({ user: signed.body.user, organization: signed.body.organization, csrfToken: signed.csrf })
    })

    it("a wrong password and an unknown email get the same 401, and no cookie", async () => {
      const wrong = await host().request("POST", "/api/v1/session", {
        key: null,
        body: { email: "rita@acme.example", password: "not-her-password" }
      })
      const unknown = await host().request("POST", "/api/v1/session", {
        key: null,
        body: { email: "nobody@acme.example", password: "whatever-password" }
      })
      const noPassword = await host().request("POST", "/api/v1/session", {
        key: null,
        body: { email: "nopass@acme.example", password: "whatever-password" }
      })
      for (const answer of [wrong, unknown, noPassword]) {
        expectProblem(answer, 401, { type: "/problems/sign-in-failed" })
        expect(answer.headers.get("set-cookie")).toBeNull()
      }
      const strip = (body: any) => ({ ...body, correlationId: undefined })
      expect(strip(wrong.body)).toEqual(strip(unknown.body))
      expect(strip(noPassword.body)).toEqual(strip(unknown.body))
      expectProblem(await host().request("POST", "/api/v1/session", { key: null, body: { email: "", password: "x" } }), 400, {
        paths: ["email"]
      })
    })

    it("one email in two organizations: the one whose password matches, or the one named", async () => {
      const acme = await signIn(host(), "ada@acme.example", passwords.owner)
      const globex = await signIn(host(), "ada@acme.example", passwords.globex)
      expect(acme.body.organization.id).toBe("org_acme")
      expect(globex.body.organization.id).toBe("org_globex")
      expect(globex.body.user.name).toBe("Ada at Globex")
      const named = await host().request("POST", "/api/v1/session", {
        key: null,
        body: { email: "ada@acme.example", password: passwords.owner, organizationId: "org_globex" }
      })
      expectProblem(named, 401)
    })

    it("GET /session: 401 without a cookie or with an unknown one; DELETE signs out (CSRF checked) and clears the cookie", async () => {
      expectProblem(await host().request("GET", "/api/v1/session", { key: null }), 401, { type: "/problems/not-signed-in" })
      expectProblem(
        await host().request("GET", "/api/v1/session", { key: null, headers: { cookie: `image_policy_session=${"0".repeat(64)}` } }),
        401
      )
      const signed = await signIn(host(), "rita@acme.example", passwords.reader)
      expectProblem(await host().request("DELETE", "/api/v1/session", withCookie(signed)), 403, { type: "/problems/csrf" })
      expectJson(await host().request("GET", "/api/v1/session", withCookie(signed)), 200)
      const out = await host().request("DELETE", "/api/v1/session", withCookie(signed, { csrf: true }))
      expect(out.status, out.text).toBe(204)
      expect(out.headers.get("set-cookie")).toMatch(/^image_policy_session=;.*Max-Age=0/i)
      expectProblem(await host().request("GET", "/api/v1/session", withCookie(signed)), 401)
      // signing out again (no live session) is fine
      expect((await host().request("DELETE", "/api/v1/session", withCookie(signed))).status).toBe(204)
    })

    it("the cookie on organization routes: the same 401 -> 404 -> 403 order as keys, and no edition gate", async () => {
      const owner = await signIn(host(), "ada@acme.example", passwords.owner)
      const reader = await signIn(host(), "rita@acme.example", passwords.reader)
      const small = await signIn(host(), "sam@small.example", passwords.small)
      expectJson(await host().request("GET", `${acme}/teams`, withCookie(owner)), 200)
      expectJson(await host().request("GET", `${acme}/teams`, withCookie(reader)), 200)
      // 401: no cookie, unknown cookie
      expectProblem(await host().request("GET", `${acme}/teams`, { key: null }), 401, { type: "/problems/unauthenticated" })
      expectProblem(await host().request("GET", `${acme}/teams`, { key: null, headers: { cookie: "image_policy_session=junk" } }), 401, {
        type: "/problems/not-signed-in"
      })
      // 404: another organization, known or not
      expectProblem(await host().request("GET", "/api/v1/org/org_globex/teams", withCookie(owner)), 404, {
        type: "/problems/organization-not-found"
      })
      expectProblem(await host().request("GET", "/api/v1/org/org_nope/teams", withCookie(owner)), 404)
      // 403: a permission the member does not hold (before the body is read: 413/400 come after)
      expectProblem(await host().request("GET", `${acme}/api-keys`, withCookie(reader)), 403, { type: "/problems/permission-denied" })
      expectProblem(
        await host().request("POST", `${acme}/teams`, withCookie(reader, { csrf: true, headers: { "content-type": "application/json" } })),
        403,
        { type: "/problems/permission-denied" }
      )
      // 404 before 403: another organization's route the member could not use anyway
      expectProblem(await host().request("GET", "/api/v1/org/org_globex/api-keys", withCookie(reader)), 404)
      // then the body: 400 naming the field, then 404 for an unknown resource in the path
      expectProblem(await host().request("POST", `${acme}/teams`, withCookie(owner, { csrf: true, body: { name: "" } })), 400, {
        paths: ["name"]
      })
      expectProblem(await host().request("GET", `${acme}/teams/team_00000000000000000000000000`, withCookie(owner)), 404)
      // the console is for every edition: a team-edition organization's member signs in and reads
      expectJson(await host().request("GET", "/api/v1/org/org_free/teams", withCookie(small)), 200)
      expectProblem(await host().request("GET", "/api/v1/org/org_free/teams", { key: secrets.freeEdition }), 403)
    })

    it("a request with an API key is answered as the key, whatever cookie it carries", async () => {
      const owner = await signIn(host(), "ada@acme.example", passwords.owner)
      const both = (key: string, path: string) => host().request("GET", path, { key, headers: { cookie: owner.cookie } })
      expectProblem(await both("ipk_wrong", `${acme}/teams`), 401, { type: "/problems/unauthenticated" })
      expectProblem(await both(secrets.otherOrg, `${acme}/teams`), 404)
      expectProblem(await both(secrets.draftsOnly, `${acme}/teams`), 403)
      expectJson(await both(secrets.otherOrg, "/api/v1/org/org_globex/teams"), 200)
    })

    it("CSRF: unsafe methods need the session's token and, with an Origin, this service's; safe ones need neither", async () => {
      const owner = await signIn(host(), "ada@acme.example", passwords.owner)
      const body = { name: `csrf-${Math.random()}` }
      expectProblem(await host().request("POST", `${acme}/teams`, withCookie(owner, { body })), 403, { type: "/problems/csrf" })
      expectProblem(
        await host().request("POST", `${acme}/teams`, withCookie(owner, { body, headers: { "x-csrf-token": "0".repeat(64) } })),
        403,
        { type: "/problems/csrf" }
      )
      expectProblem(
        await host().request("POST", `${acme}/teams`, withCookie(owner, { body, csrf: true, headers: { origin: "https://evil.example" } })),
        403,
        { type: "/problems/csrf" }
      )
      // CSRF is checked right after the session: a forged request learns nothing about other organizations
      expectProblem(await host().request("POST", "/api/v1/org/org_globex/teams", withCookie(owner, { body })), 403, {
        type: "/problems/csrf"
      })
      expectJson(await host().request("GET", `${acme}/teams`, withCookie(owner, { headers: { origin: "https://evil.example" } })), 200)
      const created = expectJson(
        await host().request("POST", `${acme}/teams`, withCookie(owner, { body, csrf: true, headers: { origin: host().url } })),
        201
      )
      expect(created.name).toBe(body.name)
      // sign-in from another origin (login CSRF) is refused too
      expectProblem(
        await host().request("POST", "/api/v1/session", {
          key: null,
          body: { email: "ada@acme.example", password: passwords.owner },
          headers: { origin: "https://evil.example" }
        }),
        403,
        { type: "/problems/csrf" }
      )
    })

    it("audit: sign-in, refused sign-in of a known account, sign-out, and actions with the cookie name the member", async () => {
      const owner = await signIn(host(), "ada@acme.example", passwords.owner)
      const memberId = owner.body.user.id
      await host().request("POST", "/api/v1/session", { key: null, body: { email: "ada@acme.example", password: "wrong-password!" } })
      const team = expectJson(
        await host().request("POST", `${acme}/teams`, withCookie(owner, { csrf: true, body: { name: `audited-${Math.random()}` } })),
        201
      )
      expect((await host().request("DELETE", "/api/v1/session", withCookie(owner, { csrf: true }))).status).toBe(204)
      const rows = await auditRows(host())
      const mine = rows.filter((r) => r.actor.kind === "member" && r.actor.memberId === memberId)
      expect(mine.some((r) => r.action === "session.sign_in" && r.outcome === "success" && r.resourceType === "session")).toBe(true)
      expect(mine.some((r) => r.action === "session.sign_in" && r.outcome === "rejected" && r.detail === "wrong-password")).toBe(true)
      expect(mine.some((r) => r.action === "session.sign_out" && r.outcome === "success")).toBe(true)
      expect(mine.some((r) => r.resourceId === team.id && r.outcome === "success")).toBe(true)
      const text = JSON.stringify(rows)
      expect(text).not.toContain(passwords.owner)
      expect(text).not.toContain(owner.cookie.split("=")[1])
      expect(text).not.toContain(owner.csrf)
      // the audit filter finds a member's rows by its id
      const filtered = expectJson(await host().request("GET", `${acme}/audit-events?actor=${memberId}`), 200)
      expect(filtered.items.length).toBeGreaterThan(0)
      expect(filtered.items.every((r: any) => r.actor.memberId === memberId)).toBe(true)
    })

    it("a disabled member loses its session at once; a removed member's sessions go with it", async () => {
      const reader = await signIn(host(), "rita@acme.example", passwords.reader)
      const id = reader.body.user.id
      expectJson(await host().request("PATCH", `${acme}/members/${id}`, { body: { disabled: true } }), 200)
      expectProblem(await host().request("GET", "/api/v1/session", withCookie(reader)), 401)
      expectProblem(await host().request("GET", `${acme}/teams`, withCookie(reader)), 401)
      // a disabled member cannot sign in either: the same 401 as a wrong password
      expectProblem(
        await host().request("POST", "/api/v1/session", { key: null, body: { email: "rita@acme.example", password: passwords.reader } }),
        401,
        {
          type: "/problems/sign-in-failed"
        }
      )
      expectJson(await host().request("PATCH", `${acme}/members/${id}`, { body: { disabled: false } }), 200)
      const again = await signIn(host(), "rita@acme.example", passwords.reader)
      expect((await host().request("DELETE", `${acme}/members/${id}`)).status).toBe(204)
      expectProblem(await host().request("GET", "/api/v1/session", withCookie(again)), 401)
      expectProblem(
        await host().request("POST", "/api/v1/session", { key: null, body: { email: "rita@acme.example", password: passwords.reader } }),
        401
      )
    })
  })

await onEveryStore("sessions", suite, { pglite: true })
