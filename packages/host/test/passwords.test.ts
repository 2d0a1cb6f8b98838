/**
 * Passwords over HTTP (docs/sessions.md): a member changes its own (PUT /session/password, with the
 * session's CSRF token and the current password, throttled as sign-in is), and an administrator
 * resets a member's (POST /members/{id}/password, a generated password answered once), never for a
 * member holding permissions the administrator lacks. Both end every session of the member.
 */
import { describe, expect, it } from "vitest"
import { passwords, sessionHost, signIn, withCookie } from "./support/sessions.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore } from "./support/suites.js"

const acme = "/api/v1/org/org_acme"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`passwords (${storeName})`, () => {
    const host = sessionHost(makeStore)
    const memberId = async (email: string) =>
      (expectJson(await host().request("GET", `${acme}/members?limit=100`), 200).items as Array<any>).find((m) => m.email === email).id

    it("a member changes its own password: CSRF and the current password first, then every session ends", async () => {
      const first = await signIn(host(), "ada@acme.example", passwords.owner)
      const second = await signIn(host(), "ada@acme.example", passwords.owner)
      const change = (body: unknown, csrf = true) => host().request("PUT", "/api/v1/session/password", withCookie(first, { csrf, body }))
      const next = "a-new-owner-password-456"
      expectProblem(
        await host().request("PUT", "/api/v1/session/password", { key: null, body: { currentPassword: "x", newPassword: next } }),
        401
      )
      expectProblem(await change({ currentPassword: passwords.owner, newPassword: next }, false), 403, { type: "/problems/csrf" })
      expectProblem(await change({ currentPassword: "not-the-password", newPassword: next }), 400, { paths: ["currentPassword"] })
      expectProblem(await change({ currentPassword: passwords.owner, newPassword: "short" }), 400, { paths: ["newPassword"] })
      // nothing changed so far: both sessions and the old password still work
      expectJson(await host().request("GET", "/api/v1/session", withCookie(second)), 200)

      const done = await change({ currentPassword: passwords.owner, newPassword: next })
      expect(done.status, done.text).toBe(204)
      expect(done.headers.get("set-cookie")).toMatch(/^image_policy_session=;.*Max-Age=0/i)
      expectProblem(await host().request("GET", "/api/v1/session", withCookie(first)), 401)
      expectProblem(await host().request("GET", "/api/v1/session", withCookie(second)), 401)
      expectProblem(
        await host().request("POST", "/api/v1/session", { key: null, body: { email: "ada@acme.example", password: passwords.owner } }),
        401
      )
      const again = await signIn(host(), "ada@acme.example", next)
      // the same email in Globex keeps its own password
      await signIn(host(), "ada@acme.example", passwords.globex)

      const text = JSON.stringify(await auditRows(host()))
      expect(text).not.toContain(next)
      expect(text).not.toContain(passwords.owner)
      // the change and, before it, the refused one (after the seed set the password)
      const rows = (await auditRows(host())).filter((r) => r.action === "member.set_password" && r.resourceId === again.body.user.id)
      expect(rows.map((r) => r.outcome).slice(0, 2)).toEqual(["success", "rejected"]) // newest first
      expect(rows[0].actor).toEqual({ kind: "member", memberId: again.body.user.id })
      // put the seed's password back for the other tests
      const back = await host().request(
        "PUT",
        "/api/v1/session/password",
        withCookie(again, { csrf: true, body: { currentPassword: next, newPassword: passwords.owner } })
      )
      expect(back.status, back.text).toBe(204)
    })

    it("an administrator resets a member's password: shown once, the old sessions end, the member signs in with it", async () => {
      const reader = await signIn(host(), "rita@acme.example", passwords.reader)
      const id = reader.body.user.id
      const reset = expectJson(await host().request("POST", `${acme}/members/${id}/password`), 200)
      expect(reset.password).toMatch(/^[0-9a-f]{24}$/)
      expectProblem(await host().request("GET", "/api/v1/session", withCookie(reader)), 401)
      const signed = await signIn(host(), "rita@acme.example", reset.password)
      // a Read Only member cannot reset anyone's, not even with its session
      expectProblem(
        await host().request("POST", `${acme}/members/${await memberId("ada@acme.example")}/password`, withCookie(signed, { csrf: true })),
        403
      )
      expect(JSON.stringify(await auditRows(host()))).not.toContain(reset.password)
      // a member without a password (created in the console) gets one the same way
      const fresh = expectJson(await host().request("POST", `${acme}/members/${await memberId("nopass@acme.example")}/password`), 200)
      await signIn(host(), "nopass@acme.example", fresh.password)
      expectProblem(await host().request("POST", `${acme}/members/mbr_${"0".repeat(26)}/password`), 404)
      // restore the reader's password for the other tests
      const restore = await host().request(
        "PUT",
        "/api/v1/session/password",
        withCookie(signed, { csrf: true, body: { currentPassword: reset.password, newPassword: passwords.reader } })
      )
      expect(restore.status, restore.text).toBe(204)
    })

    it("nobody resets the password of a member holding permissions they lack", async () => {
      const role = expectJson(
        await host().request("POST", `${acme}/roles`, { body: { name: `Member admins ${storeName}`, permissions: ["members:manage"] } }),
        201
      )
      const admin = expectJson(
        await host().request("POST", `${acme}/members`, {
          body: { email: `admin-${storeName}@acme.example`, name: "Admin", role: role.id }
        }),
        201
      )
      const { password } = expectJson(await host().request("POST", `${acme}/members/${admin.id}/password`), 200)
      const signed = await signIn(host(), admin.email, password)
      const owner = await memberId("ada@acme.example")
      expectProblem(
        await host().request("POST", `${acme}/members/${owner}/password`, withCookie(signed, { csrf: true })),
        403,
        { type: "/problems/permission-not-grantable" }
      )
      // the owner's password still works
      await signIn(host(), "ada@acme.example", passwords.owner)
      // one holding no more than the admin: allowed
      const peer = expectJson(
        await host().request("POST", `${acme}/members`, { body: { email: `peer-${storeName}@acme.example`, name: "Peer", role: role.id } }),
        201
      )
      expectJson(await host().request("POST", `${acme}/members/${peer.id}/password`, withCookie(signed, { csrf: true })), 200)
    })

    it("wrong current passwords count against the sign-in throttle of the account: 429 with Retry-After", async () => {
      const id = await memberId("nopass@acme.example")
      const { password } = expectJson(await host().request("POST", `${acme}/members/${id}/password`), 200)
      const signed = await signIn(host(), "nopass@acme.example", password)
      const wrong = () =>
        host().request(
          "PUT",
          "/api/v1/session/password",
          withCookie(signed, { csrf: true, body: { currentPassword: "guess-guess-guess", newPassword: "whatever-new-password" } })
        )
      for (let i = 0; i < 5; i++) expectProblem(await wrong(), 400, { paths: ["currentPassword"] })
      const throttled = await wrong()
      expectProblem(throttled, 429, { type: "/problems/sign-in-throttled" })
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
      // even the right one waits, as a sign-in would
      expectProblem(
        await host().request(
          "PUT",
          "/api/v1/session/password",
          withCookie(signed, { csrf: true, body: { currentPassword: password, newPassword: "whatever-new-password" } })
        ),
        429
      )
    })
  })

await onEveryStore("passwords", suite, { pglite: true })
