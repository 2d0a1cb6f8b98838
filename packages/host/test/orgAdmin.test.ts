/**
 * HTTP tests of organization administration (issue 15): teams and routines, VCS connections and
 * settings; permissions, problems naming the field, 409 while in use, audit rows, and connections
 * made through the API read by the providers and the push receiver exactly like seeded ones. Runs
 * on the memory store and PostgreSQL.
 */
import { createHmac, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore, readAllPages } from "./support/suites.js"

/** What the stub provider saw: the Authorization header of each request, by path. */
const seen: Array<{ readonly url: string; readonly authorization: string | null }> = []
const stubFetch = async (url: string, init: RequestInit): Promise<Response> => {
  seen.push({ url, authorization: new Headers(init.headers).get("authorization") })
  if (new URL(url).pathname.endsWith("/user/repos")) {
    return new Response(JSON.stringify([{ id: 4242, full_name: "self/hosted", default_branch: "trunk" }]), {
      status: 200,
      headers: { "content-type": "application/json" }
    })
  }
  return new Response("{}", { status: 404, headers: { "content-type": "application/json" } })
}

const token = "ghp_api_created_token_0123456789"
const webhookSecret = "push-secret-of-an-api-connection"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`organization administration (${storeName})`, () => {
    let running: TestHost | undefined
    beforeAll(async () => {
      // API connections reach "providers" through this stub; fixture connections stay as seeded
      running = await startTestHost({ store: makeStore(), vcs: { fetch: stubFetch } })
    })
    afterAll(() => running?.stop())
    const host = (): TestHost => running!
    const acme = () => host().org
    const base = () => `/api/v1/org/${acme().id}`
    const globexBase = () => `/api/v1/org/${host().ids[1]!.id}`
    const lastAudit = async () => (await auditRows(host()))[0]

    describe("teams", () => {
      it("creates (201), renames and lists a team; each change leaves its audit row", async () => {
        const created = expectJson(await host().request("POST", `${base()}/teams`, { body: { name: "  Data  " } }), 201)
        expect(created).toStrictEqual({ id: expect.stringMatching(/^team_[0-9a-z]+$/), name: "Data" })
        expect(await lastAudit()).toMatchObject({ action: "team.create", resourceType: "team", resourceId: created.id, outcome: "success" })
        const renamed = expectJson(await host().request("PATCH", `${base()}/teams/${created.id}`, { body: { name: "Data platform" } }), 200)
        expect(renamed).toStrictEqual({ id: created.id, name: "Data platform" })
        expect(await lastAudit()).toMatchObject({ action: "team.rename", resourceId: created.id })
        const teams = (await readAllPages(host(), `${base()}/teams`)).items
        expect(teams).toContainEqual(renamed)
      })

      it("refuses bad names naming the field, unknown teams with 404, and keys without organization:manage with 403", async () => {
        expectProblem(await host().request("POST", `${base()}/teams`, { body: { name: "" } }), 400, { paths: ["name"] })
        expectProblem(await host().request("POST", `${base()}/teams`, { body: { name: "x", color: "red" } }), 400, { paths: ["color"] })
        expectProblem(await host().request("PATCH", `${base()}/teams/team_unknown`, { body: { name: "x" } }), 404)
        expectProblem(await host().request("PATCH", `${base()}/teams/${host().ids[1]!.teams["Ops"]}`, { body: { name: "x" } }), 404)
        for (const key of [secrets.automation, secrets.readOnly]) {
          expectProblem(await host().request("POST", `${base()}/teams`, { key, body: { name: "Nope" } }), 403)
          expectProblem(await host().request("DELETE", `${base()}/teams/${acme().teams["Payments"]}`, { key }), 403)
        }
      })

      it("deletes a team with its routines (204); 409 while it is the default notification team or a repository's", async () => {
        const team = expectJson(await host().request("POST", `${base()}/teams`, { body: { name: "Short-lived" } }), 201)
        const routine = expectJson(
          await host().request("POST", `${base()}/teams/${team.id}/routines`, { body: { name: "R", intervalDays: 3 } }),
          201
        )
        expect((await host().request("DELETE", `${base()}/teams/${team.id}`)).status).toBe(204)
        expectProblem(await host().request("PATCH", `${base()}/routines/${routine.id}`, { body: { active: false } }), 404)
        expectProblem(await host().request("DELETE", `${base()}/teams/${team.id}`), 404)
        expect(await lastAudit()).toMatchObject({ action: "deleteTeam", outcome: "rejected", resourceId: null })

        const inUse = expectProblem(await host().request("DELETE", `${base()}/teams/${acme().teams["Platform"]}`), 409, {
          type: "/problems/team-in-use"
        })
        expect(inUse.detail).toContain("default notification team")
        expect((await readAllPages(host(), `${base()}/routines`)).items.map((r: any) => r.id)).toContain(acme().routines["Platform/Weekly"])

        const owned = expectJson(await host().request("POST", `${base()}/teams`, { body: { name: "Owner of a repo" } }), 201)
        const weekly = expectJson(
          await host().request("POST", `${base()}/teams/${owned.id}/routines`, { body: { name: "W", intervalDays: 7 } }),
          201
        )
        expectJson(
          await host().request("POST", `${base()}/repositories`, {
            body: {
              vcsConnectionId: acme().vcsConnections["acme"],
              externalRepoId: "1003",
              assignedTeamId: owned.id,
              assignedRoutineId: weekly.id,
              branchNames: ["main"]
            }
          }),
          201
        )
        const refused = expectProblem(await host().request("DELETE", `${base()}/teams/${owned.id}`), 409, { type: "/problems/team-in-use" })
        expect(refused.detail).toContain("repository")
        expect((await readAllPages(host(), `${base()}/teams/${owned.id}/routines`)).items).toHaveLength(1)
        expectProblem(await host().request("DELETE", `${base()}/routines/${weekly.id}`), 409, { type: "/problems/routine-in-use" })
      })
    })

    describe("routines", () => {
      it("creates under a team (active by default), patches name, active and intervalDays (1..365)", async () => {
        const teamId = acme().teams["Payments"]
        const created = expectJson(
          await host().request("POST", `${base()}/teams/${teamId}/routines`, { body: { name: "Monthly", intervalDays: 30 } }),
          201
        )
        expect(created).toStrictEqual({ id: expect.stringMatching(/^rtn_/), teamId, name: "Monthly", active: true, intervalDays: 30 })
        const patched = expectJson(
          await host().request("PATCH", `${base()}/routines/${created.id}`, { body: { active: false, intervalDays: 365 } }),
          200
        )
        expect(patched).toStrictEqual({ ...created, active: false, intervalDays: 365 })
        expect(await lastAudit()).toMatchObject({ action: "routine.update", resourceType: "routine", resourceId: created.id })
        for (const intervalDays of [0, 366, 1.5]) {
          expectProblem(await host().request("PATCH", `${base()}/routines/${created.id}`, { body: { intervalDays } }), 400, {
            paths: ["intervalDays"]
          })
        }
        expectProblem(await host().request("PATCH", `${base()}/routines/${created.id}`, { body: { teamId } }), 400, { paths: ["teamId"] })
        expectProblem(await host().request("POST", `${base()}/teams/team_unknown/routines`, { body: { name: "x", intervalDays: 1 } }), 404)
        expect((await host().request("DELETE", `${base()}/routines/${created.id}`)).status).toBe(204)
        expectProblem(await host().request("DELETE", `${base()}/routines/${created.id}`), 404)
      })
    })

    describe("settings", () => {
      it("shows edition and grants read-only, and changes the default notification team and cooldown", async () => {
        const before = expectJson(await host().request("GET", `${base()}/settings`, { key: secrets.readOnly }), 200)
        expect(before).toStrictEqual({
          id: acme().id,
          name: "Acme",
          edition: "enterprise",
          grants: [],
          defaultNotificationTeamId: acme().teams["Platform"],
          cooldownSeconds: 0
        })
        const after = expectJson(
          await host().request("PATCH", `${base()}/settings`, {
            body: { defaultNotificationTeamId: acme().teams["Payments"], cooldownSeconds: 3600 }
          }),
          200
        )
        expect(after).toStrictEqual({ ...before, defaultNotificationTeamId: acme().teams["Payments"], cooldownSeconds: 3600 })
        expect(expectJson(await host().request("GET", `${base()}/settings`), 200)).toStrictEqual(after)
        expect(await lastAudit()).toMatchObject({
          action: "organization.update_settings",
          resourceType: "organization",
          resourceId: acme().id
        })
        // the Payments team is now the default: it cannot be deleted; clearing the default frees it
        expectProblem(await host().request("DELETE", `${base()}/teams/${acme().teams["Payments"]}`), 409, { type: "/problems/team-in-use" })
        expectJson(
          await host().request("PATCH", `${base()}/settings`, {
            body: { defaultNotificationTeamId: acme().teams["Platform"], cooldownSeconds: 0 }
          }),
          200
        )
      })

      it("refuses unknown teams, edition and grants, and keys without organization:manage; nothing changes", async () => {
        const before = expectJson(await host().request("GET", `${base()}/settings`), 200)
        expectProblem(
          await host().request("PATCH", `${base()}/settings`, { body: { defaultNotificationTeamId: host().ids[1]!.teams["Ops"] } }),
          400,
          {
            paths: ["defaultNotificationTeamId"]
          }
        )
        expectProblem(await host().request("PATCH", `${base()}/settings`, { body: { edition: "enterprise" } }), 400, { paths: ["edition"] })
        expectProblem(await host().request("PATCH", `${base()}/settings`, { body: { cooldownSeconds: -1 } }), 400, {
          paths: ["cooldownSeconds"]
        })
        expectProblem(await host().request("PATCH", `${base()}/settings`, { key: secrets.automation, body: { cooldownSeconds: 5 } }), 403)
        expect(expectJson(await host().request("GET", `${base()}/settings`), 200)).toStrictEqual(before)
        expectProblem(await host().request("GET", `${globexBase()}/settings`), 404)
      })
    })

    describe("VCS connections", () => {
      const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`
      const push = (connectionId: string, secret: string) => {
        const raw = JSON.stringify({
          ref: "refs/heads/main",
          before: "1".repeat(40),
          after: "2".repeat(40),
          created: false,
          deleted: false,
          forced: false,
          repository: { full_name: "self/hosted", pushed_at: Math.floor(Date.now() / 1000) },
          commits: [{ id: "2".repeat(40), added: [], modified: ["README.md"], removed: [] }]
        })
        return host().request("POST", `/api/v1/vcs-events/github/${connectionId}`, {
          key: null,
          raw,
          headers: {
            "x-github-event": "push",
            "x-github-delivery": randomUUID(),
            "x-hub-signature-256": sign(secret, raw),
            "content-type": "application/json"
          }
        })
      }

      it("creates one (201) whose token and webhook secret are never shown, and the providers use it like a seeded one", async () => {
        const answer = await host().request("POST", `${base()}/vcs-connections`, {
          key: secrets.automation,
          body: { provider: "github", externalAccountName: "self", baseUrl: "https://ghe.example.com/api/v3", token, webhookSecret }
        })
        const created = expectJson(answer, 201)
        expect(created).toStrictEqual({
          id: expect.stringMatching(/^vcs_/),
          provider: "github",
          externalAccountName: "self",
          status: "active",
          source: "api",
          baseUrl: "https://ghe.example.com/api/v3",
          tokenConfigured: true,
          webhookSecretConfigured: true
        })
        expect(answer.text).not.toContain(token)
        expect(answer.text).not.toContain(webhookSecret)
        const audit = await auditRows(host())
        expect(audit[0]).toMatchObject({ action: "vcs_connection.create", resourceId: created.id })
        expect(JSON.stringify(audit)).not.toContain(token)
        expect(expectJson(await host().request("GET", `${base()}/vcs-connections/${created.id}`, { key: secrets.readOnly }), 200))
          .toStrictEqual(created)
        expect((await readAllPages(host(), `${base()}/vcs-connections`)).items).toContainEqual({
          id: created.id,
          provider: "github",
          externalAccountName: "self",
          status: "active"
        })

        const repos = expectJson(await host().request("GET", `${base()}/vcs-connections/${created.id}/available-repos?refresh=1`), 200)
        expect(repos.items).toStrictEqual([{ externalRepoId: "4242", fullName: "self/hosted", defaultBranch: "trunk", tracked: false }])
        expect(seen.at(-1)).toStrictEqual({
          url: "https://ghe.example.com/api/v3/user/repos?per_page=100",
          authorization: `Bearer ${token}`
        })

        // the push receiver opens the sealed webhook secret, as it does a seed's
        expect(expectJson(await push(created.id, webhookSecret), 202)).toStrictEqual({ synced: [], merged: [] })
        expectProblem(await push(created.id, "not-the-secret-of-this-connection"), 401)

        // a new token replaces the old one at the next call
        const replaced = expectJson(
          await host().request("PUT", `${base()}/vcs-connections/${created.id}/token`, { body: { token: "ghp_the_new_one" } }),
          200
        )
        expect(replaced).toStrictEqual(created)
        expect(await lastAudit()).toMatchObject({ action: "vcs_connection.replace_token", resourceId: created.id })
        expectJson(await host().request("GET", `${base()}/vcs-connections/${created.id}/available-repos?refresh=1`), 200)
        expect(seen.at(-1)?.authorization).toBe("Bearer ghp_the_new_one")

        // switched off: onboarding through it is refused before the provider is asked
        const off = expectJson(
          await host().request("PATCH", `${base()}/vcs-connections/${created.id}`, { body: { status: "inactive" } }),
          200
        )
        expect(off.status).toBe("inactive")
        expectProblem(
          await host().request("POST", `${base()}/repositories`, {
            body: {
              vcsConnectionId: created.id,
              externalRepoId: "4242",
              assignedTeamId: acme().teams["Platform"],
              assignedRoutineId: acme().routines["Platform/Weekly"],
              branchNames: ["trunk"]
            }
          }),
          400,
          { type: "/problems/connection-not-active" }
        )
        expect(
          expectJson(await host().request("PATCH", `${base()}/vcs-connections/${created.id}`, { body: { status: "active" } }), 200).status
        ).toBe("active")

        expect((await host().request("DELETE", `${base()}/vcs-connections/${created.id}`)).status).toBe(204)
        expectProblem(await host().request("GET", `${base()}/vcs-connections/${created.id}`), 404)
        expectProblem(await push(created.id, webhookSecret), 401)
      })

      it("uses the provider's public API without baseUrl; refuses bad bodies without quoting secrets", async () => {
        const created = expectJson(
          await host().request("POST", `${base()}/vcs-connections`, { body: { provider: "gitlab", externalAccountName: "gl", token } }),
          201
        )
        expect(created).toMatchObject({ baseUrl: "https://gitlab.com/api/v4", tokenConfigured: true, webhookSecretConfigured: false })
        const pasted = "a token with spaces"
        const bad = expectProblem(
          await host().request("POST", `${base()}/vcs-connections`, {
            body: { provider: "github", externalAccountName: "x", token: pasted, baseUrl: "https://user:pw@ghe.example.com" }
          }),
          400,
          { paths: ["token", "baseUrl"] }
        )
        expect(JSON.stringify(bad)).not.toContain(pasted)
        expectProblem(
          await host().request("POST", `${base()}/vcs-connections`, { body: { provider: "bitbucket", externalAccountName: "x", token } }),
          400,
          { paths: ["provider"] }
        )
        expectProblem(await host().request("PATCH", `${base()}/vcs-connections/${created.id}`, { body: { status: "error" } }), 400, {
          paths: ["status"]
        })
        expectProblem(
          await host().request("POST", `${base()}/vcs-connections`, {
            key: secrets.readOnly,
            body: { provider: "gitlab", externalAccountName: "gl", token }
          }),
          403
        )
      })

      it("answers 409 for a fixture connection's token and while repositories or external phases read through one", async () => {
        const fixture = acme().vcsConnections["acme"]!
        expectProblem(await host().request("PUT", `${base()}/vcs-connections/${fixture}/token`, { body: { token } }), 409, {
          type: "/problems/vcs-connection-has-no-token"
        })
        expect(expectJson(await host().request("GET", `${base()}/vcs-connections/${fixture}`), 200)).toMatchObject({
          source: "fixture",
          tokenConfigured: false
        })
        // the seed's external phase reads its file through "acme"
        const inUse = expectProblem(await host().request("DELETE", `${base()}/vcs-connections/${fixture}`), 409, {
          type: "/problems/vcs-connection-in-use"
        })
        expect(inUse.detail).toMatch(/repositor|external/)
        expectProblem(await host().request("DELETE", `${base()}/vcs-connections/${host().ids[1]!.vcsConnections["globex"]}`), 404)
        expect((await readAllPages(host(), `${base()}/vcs-connections`)).items.map((c: any) => c.id)).toContain(fixture)
      })
    })
  })

await onEveryStore("org-admin", suite, { pglite: true })
