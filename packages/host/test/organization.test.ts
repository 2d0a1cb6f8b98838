/**
 * HTTP tests of the organization reads (spec 2, 4, 5, 7; contracts 3-5): teams, routines of a team,
 * all routines, VCS connections, available repositories and branches; pagination of the teams list;
 * the authentication order of contracts 4 on these routes. Runs on the memory store and PostgreSQL.
 */
import { describe, expect, it } from "vitest"
import { secrets } from "./support/harness.js"
import { expectJson, expectProblem, type MakeStore, onEveryStore, readAllPages, useHost } from "./support/suites.js"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`organization routes (${storeName})`, () => {
    const host = useHost(makeStore)
    const acme = () => host().org
    const globex = () => host().ids[1]!
    const base = () => `/api/v1/org/${acme().id}`
    const connection = (name: string) => acme().vcsConnections[name]!

    describe("GET teams", () => {
      it("lists the organization's teams as { id, name } only", async () => {
        const body = expectJson(await host().request("GET", `${base()}/teams`), 200)
        expect(body.nextCursor).toBeUndefined()
        const byName = [...body.items].sort((a: any, b: any) => a.name.localeCompare(b.name))
        expect(byName).toStrictEqual([
          { id: acme().teams["Payments"], name: "Payments" },
          { id: acme().teams["Platform"], name: "Platform" }
        ])
      })

      it("shows no team of another organization", async () => {
        const text = (await host().request("GET", `${base()}/teams`)).text
        expect(text).not.toContain(globex().teams["Ops"]!)
        expect(text).not.toContain("Ops")
      })

      it("is readable with the read-only and the Policy Automation keys", async () => {
        expectJson(await host().request("GET", `${base()}/teams`, { key: secrets.readOnly }), 200)
        expectJson(await host().request("GET", `${base()}/teams`, { key: secrets.automation }), 200)
      })

      it("answers 403 to a key without teams:read", async () => {
        expectProblem(await host().request("GET", `${base()}/teams`, { key: secrets.draftsOnly }), 403, {
          type: "/problems/permission-denied"
        })
      })
    })

    describe("pagination of GET teams", () => {
      it("gives nextCursor only while more rows exist, and following it visits every row once, in order", async () => {
        const all = expectJson(await host().request("GET", `${base()}/teams?limit=200`), 200)
        expect(all.nextCursor).toBeUndefined()
        expect(all.items).toHaveLength(2)

        const first = expectJson(await host().request("GET", `${base()}/teams?limit=1`), 200)
        expect(first.items).toStrictEqual([all.items[0]])
        expect(first.nextCursor).toBeTypeOf("string")
        const second = expectJson(
          await host().request("GET", `${base()}/teams?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`),
          200
        )
        expect(second.items).toStrictEqual([all.items[1]])
        // exactly the last row: no cursor to an empty page
        expect(second.nextCursor).toBeUndefined()

        const exact = expectJson(await host().request("GET", `${base()}/teams?limit=2`), 200)
        expect(exact.items).toStrictEqual(all.items)
        expect(exact.nextCursor).toBeUndefined()

        const walked = await readAllPages(host(), `${base()}/teams`, { limit: 1 })
        expect(walked.items).toStrictEqual(all.items)
        expect(walked.pages).toBe(2)
      })

      it("accepts limit 1 and 200 and rejects 0, 201, -1, 1.5 and x naming `limit`", async () => {
        for (const limit of ["1", "200"]) expectJson(await host().request("GET", `${base()}/teams?limit=${limit}`), 200)
        for (const limit of ["0", "201", "-1", "1.5", "x", ""]) {
          expectProblem(await host().request("GET", `${base()}/teams?limit=${limit}`), 400, { paths: ["limit"] })
        }
      })

      it("rejects a mangled or invented cursor naming `cursor`", async () => {
        const first = expectJson(await host().request("GET", `${base()}/teams?limit=1`), 200)
        const cursor: string = first.nextCursor
        const flipped = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6)
        for (const bad of [flipped, cursor.slice(0, -3), `${cursor}x`, "abc", "not a cursor", "%00"]) {
          expectProblem(await host().request("GET", `${base()}/teams?cursor=${encodeURIComponent(bad)}`), 400, {
            paths: ["cursor"]
          })
        }
      })
    })

    describe("GET teams/{teamId}/routines", () => {
      it("lists the team's routines with id, name, active and intervalDays", async () => {
        const platform = expectJson(await host().request("GET", `${base()}/teams/${acme().teams["Platform"]}/routines`), 200)
        expect(platform).toStrictEqual({
          items: [{ id: acme().routines["Platform/Weekly"], name: "Weekly", active: true, intervalDays: 7 }]
        })
        const payments = expectJson(await host().request("GET", `${base()}/teams/${acme().teams["Payments"]}/routines`), 200)
        expect(payments).toStrictEqual({
          items: [{ id: acme().routines["Payments/Daily"], name: "Daily", active: true, intervalDays: 1 }]
        })
      })

      it("answers 404 for an unknown team id and for another organization's team", async () => {
        for (const teamId of ["team_00000000000000000000000000", "nonsense", globex().teams["Ops"]!]) {
          const body = expectProblem(await host().request("GET", `${base()}/teams/${teamId}/routines`), 404)
          expect(JSON.stringify(body)).not.toContain("Weekly")
        }
      })

      it("is paginated like every list", async () => {
        expectProblem(await host().request("GET", `${base()}/teams/${acme().teams["Platform"]}/routines?limit=0`), 400, {
          paths: ["limit"]
        })
      })
    })

    describe("GET routines", () => {
      it("lists every routine with its teamId, null for the routine without team", async () => {
        const body = expectJson(await host().request("GET", `${base()}/routines`), 200)
        const byId = new Map<string, any>(body.items.map((r: any) => [r.id, r]))
        expect(body.items).toHaveLength(3)
        expect(byId.get(acme().routines["Loose"]!)).toStrictEqual({
          id: acme().routines["Loose"],
          teamId: null,
          name: "Loose",
          active: true,
          intervalDays: 30
        })
        expect(byId.get(acme().routines["Platform/Weekly"]!)).toStrictEqual({
          id: acme().routines["Platform/Weekly"],
          teamId: acme().teams["Platform"],
          name: "Weekly",
          active: true,
          intervalDays: 7
        })
        expect(byId.get(acme().routines["Payments/Daily"]!)?.teamId).toBe(acme().teams["Payments"])
        expect(JSON.stringify(body)).not.toContain(globex().routines["Ops/Weekly"]!)
      })

      it("pages through all routines once", async () => {
        const all = expectJson(await host().request("GET", `${base()}/routines`), 200)
        const walked = await readAllPages(host(), `${base()}/routines`, { limit: 2 })
        expect(walked.items).toStrictEqual(all.items)
        expect(walked.pages).toBe(2)
      })

      it("needs teams:read", async () => {
        expectProblem(await host().request("GET", `${base()}/routines`, { key: secrets.draftsOnly }), 403)
      })
    })

    describe("GET vcs-connections", () => {
      it("lists id, provider, externalAccountName and status of each connection, nothing else", async () => {
        const answer = await host().request("GET", `${base()}/vcs-connections`)
        const body = expectJson(answer, 200)
        const byName = [...body.items].sort((a: any, b: any) => a.externalAccountName.localeCompare(b.externalAccountName))
        expect(byName).toStrictEqual([
          { id: connection("acme"), provider: "github", externalAccountName: "acme", status: "active" },
          { id: connection("acme-enterprise"), provider: "github", externalAccountName: "acme-enterprise", status: "active" },
          { id: connection("acme-old"), provider: "gitlab", externalAccountName: "acme-old", status: "inactive" }
        ])
        // settings (fixture data, API base URL, token variable) stay inside the service
        expect(answer.text).not.toContain("GHE_TOKEN")
        expect(answer.text).not.toContain("ghe.example.com")
        expect(answer.text).not.toContain("acme/api")
      })

      it("needs vcs:read", async () => {
        expectJson(await host().request("GET", `${base()}/vcs-connections`, { key: secrets.readOnly }), 200)
        expectProblem(await host().request("GET", `${base()}/vcs-connections`, { key: secrets.draftsOnly }), 403)
      })

      it("pages", async () => {
        const all = expectJson(await host().request("GET", `${base()}/vcs-connections`), 200)
        const walked = await readAllPages(host(), `${base()}/vcs-connections`, { limit: 1 })
        expect(walked.items).toStrictEqual(all.items)
        expect(walked.pages).toBe(3)
      })
    })

    describe("GET vcs-connections/{id}/available-repos", () => {
      const reposPath = (name: string) => `${base()}/vcs-connections/${connection(name)}/available-repos`

      it("lists the provider's repositories with externalRepoId, fullName, defaultBranch and tracked", async () => {
        const body = expectJson(await host().request("GET", reposPath("acme")), 200)
        const sorted = [...body.items].sort((a: any, b: any) => a.externalRepoId.localeCompare(b.externalRepoId))
        expect(sorted).toStrictEqual([
          { externalRepoId: "1001", fullName: "acme/api", defaultBranch: "main", tracked: false },
          { externalRepoId: "1002", fullName: "acme/web", defaultBranch: "main", tracked: false },
          { externalRepoId: "1003", fullName: "acme/policy", defaultBranch: "main", tracked: false }
        ])
      })

      it("accepts refresh=1 and answers the same list", async () => {
        const plain = expectJson(await host().request("GET", reposPath("acme")), 200)
        const refreshed = expectJson(await host().request("GET", `${reposPath("acme")}?refresh=1`), 200)
        expect(refreshed).toStrictEqual(plain)
      })

      it("rejects an unknown refresh value naming `refresh`", async () => {
        expectProblem(await host().request("GET", `${reposPath("acme")}?refresh=yes`), 400, { paths: ["refresh"] })
      })

      it("flips tracked to true for the onboarded repository only", async () => {
        const created = await host().request("POST", `${base()}/repositories`, {
          body: {
            vcsConnectionId: connection("acme"),
            externalRepoId: "1002",
            assignedTeamId: acme().teams["Platform"],
            assignedRoutineId: acme().routines["Platform/Weekly"],
            branchNames: ["main"]
          }
        })
        expectJson(created, 201)
        for (const query of ["", "?refresh=1"]) {
          const body = expectJson(await host().request("GET", `${reposPath("acme")}${query}`), 200)
          const tracked = Object.fromEntries(body.items.map((r: any) => [r.externalRepoId, r.tracked]))
          expect(tracked).toStrictEqual({ "1001": false, "1002": true, "1003": false })
        }
      })

      it("answers a clear problem, never a 5xx, for a connection whose provider API is not configured", async () => {
        for (const query of ["", "?refresh=1"]) {
          const answer = await host().request("GET", `${reposPath("acme-enterprise")}${query}`)
          expect(answer.status).toBeLessThan(500)
          const body = expectProblem(answer, 409, { type: "/problems/vcs-provider-not-configured" })
          expect(body.detail).toMatch(/not configured|no provider/i)
          expect(answer.text).not.toContain("GHE_TOKEN")
          expect(answer.text).not.toContain("ghe.example.com")
        }
      })

      it("answers 404 for an unknown connection and for another organization's connection", async () => {
        for (const id of ["vcs_00000000000000000000000000", "nope", globex().vcsConnections["globex"]!]) {
          const answer = await host().request("GET", `${base()}/vcs-connections/${id}/available-repos`)
          expectProblem(answer, 404)
          expect(answer.text).not.toContain("globex/app")
        }
      })

      it("needs vcs:read", async () => {
        expectProblem(await host().request("GET", reposPath("acme"), { key: secrets.draftsOnly }), 403)
      })
    })

    describe("GET vcs-connections/{id}/available-branches", () => {
      const branchesPath = (name: string, query: string) => `${base()}/vcs-connections/${connection(name)}/available-branches${query}`

      it("lists the branches with isDefault true only for the provider default branch", async () => {
        const body = expectJson(await host().request("GET", branchesPath("acme", "?repositoryFullName=acme/api&defaultBranch=main")), 200)
        expect([...body.items].sort((a: any, b: any) => a.name.localeCompare(b.name))).toStrictEqual([
          { name: "develop", isDefault: false },
          { name: "main", isDefault: true },
          { name: "release", isDefault: false }
        ])
        const policy = expectJson(
          await host().request("GET", branchesPath("acme", "?repositoryFullName=acme/policy&defaultBranch=main")),
          200
        )
        expect(policy).toStrictEqual({ items: [{ name: "main", isDefault: true }] })
      })

      it("answers a 404 problem for a repository the provider does not know", async () => {
        expectProblem(await host().request("GET", branchesPath("acme", "?repositoryFullName=acme/missing&defaultBranch=main")), 404)
        // a repository of another connection is not known through this one
        expectProblem(await host().request("GET", branchesPath("acme", "?repositoryFullName=globex/app&defaultBranch=main")), 404)
      })

      it("requires repositoryFullName and defaultBranch, naming the missing one", async () => {
        expectProblem(await host().request("GET", branchesPath("acme", "?defaultBranch=main")), 400, { paths: ["repositoryFullName"] })
        expectProblem(await host().request("GET", branchesPath("acme", "?repositoryFullName=acme/api")), 400, { paths: ["defaultBranch"] })
        expectProblem(await host().request("GET", branchesPath("acme", "?repositoryFullName=&defaultBranch=main")), 400, {
          paths: ["repositoryFullName"]
        })
      })

      it("answers 404 for an unknown or foreign connection and a clear 4xx for a provider that is not configured", async () => {
        for (const id of ["vcs_00000000000000000000000000", globex().vcsConnections["globex"]!]) {
          expectProblem(
            await host().request(
              "GET",
              `${base()}/vcs-connections/${id}/available-branches?repositoryFullName=globex/app&defaultBranch=main`
            ),
            404
          )
        }
        const answer = await host().request("GET", branchesPath("acme-enterprise", "?repositoryFullName=acme/api&defaultBranch=main"))
        expectProblem(answer, 409, { type: "/problems/vcs-provider-not-configured" })
      })
    })

    describe("authentication and the order of checks (contracts 4)", () => {
      const routes = () => [
        `${base()}/teams`,
        `${base()}/teams/${acme().teams["Platform"]}/routines`,
        `${base()}/routines`,
        `${base()}/vcs-connections`,
        `${base()}/vcs-connections/${connection("acme")}/available-repos`,
        `${base()}/vcs-connections/${connection("acme")}/available-branches?repositoryFullName=acme/api&defaultBranch=main`
      ]

      it("answers 401 without a key and with an unknown key, before anything else", async () => {
        for (const path of routes()) {
          expectProblem(await host().request("GET", path, { key: null }), 401)
          expectProblem(await host().request("GET", path, { key: "unknown-secret-0123456789abcdefghijklmnopqrstu" }), 401)
          expectProblem(await host().request("GET", path, { key: "" }), 401)
        }
        // 401 wins over an unknown organization
        expectProblem(await host().request("GET", "/api/v1/org/org_nowhere/teams", { key: null }), 401)
      })

      it("answers 401 for a key after it is revoked, and 200 before", async () => {
        const created = expectJson(
          await host().request("POST", `${base()}/api-keys`, { body: { name: "short-lived", role: "Read Only", expiresInDays: 30 } }),
          201
        )
        expectJson(await host().request("GET", `${base()}/teams`, { key: created.secret }), 200)
        expectJson(await host().request("POST", `${base()}/api-keys/${created.id}/revoke`), 200)
        for (const path of routes()) expectProblem(await host().request("GET", path, { key: created.secret }), 401)
      })

      it("answers 404 when the org in the path is not the key's, before any permission check", async () => {
        const other = `/api/v1/org/${globex().id}`
        for (const key of [secrets.owner, secrets.readOnly, secrets.draftsOnly]) {
          expectProblem(await host().request("GET", `${other}/teams`, { key }), 404)
          expectProblem(await host().request("GET", `${other}/teams/${globex().teams["Ops"]}/routines`, { key }), 404)
          expectProblem(await host().request("GET", "/api/v1/org/org_nowhere/vcs-connections", { key }), 404)
        }
        expectProblem(await host().request("GET", `${base()}/teams`, { key: secrets.otherOrg }), 404)
      })

      it("answers 403 from the edition gate on the key's own organization, and 404 before it elsewhere", async () => {
        const body = expectProblem(await host().request("GET", "/api/v1/org/org_free/teams", { key: secrets.freeEdition }), 403)
        expect(body.type).toBe("/problems/automation-api-not-included")
        expectProblem(await host().request("GET", `${base()}/teams`, { key: secrets.freeEdition }), 404)
      })

      it("lets a free-edition organization with an automation-api grant in", async () => {
        const body = expectJson(await host().request("GET", "/api/v1/org/org_granted/teams", { key: secrets.grantOrg }), 200)
        expect(body).toStrictEqual({ items: [] })
      })
    })
  })

await onEveryStore("organization", suite)
