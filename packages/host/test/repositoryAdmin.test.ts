/**
 * HTTP tests of a tracked repository's administration (issue 15): PATCH with onboarding's rules
 * (team and routine, branches with the default kept), a removed branch leaving the assignments and
 * its scans, an added branch queued for a scan, and DELETE untracking the repository. Runs on the
 * memory store and PostgreSQL.
 */
import { describe, expect, it } from "vitest"
import { secrets } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore, readAllPages, useHost } from "./support/suites.js"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`repository administration (${storeName})`, () => {
    const host = useHost(makeStore)
    const acme = () => host().org
    const base = () => `/api/v1/org/${acme().id}`

    const onboard = async (externalRepoId: string, branchNames: ReadonlyArray<string>) =>
      expectJson(
        await host().request("POST", `${base()}/repositories`, {
          body: {
            vcsConnectionId: acme().vcsConnections["acme"],
            externalRepoId,
            assignedTeamId: acme().teams["Platform"],
            assignedRoutineId: acme().routines["Platform/Weekly"],
            branchNames
          }
        }),
        201
      ).repository
    const repositoryOf = async (id: string) => (await readAllPages(host(), `${base()}/repositories?repositoryId=${id}`)).items[0]
    const patch = (id: string, body: unknown, key?: string) =>
      host().request("PATCH", `${base()}/repositories/${id}`, { body, ...(key !== undefined ? { key } : {}) })

    let apiRepo = ""

    it("changes the tracked branches: a removed branch leaves the assignments and its scans, an added one is queued", async () => {
      apiRepo = (await onboard("1001", ["main", "release"])).id
      expectJson(
        await host().request("POST", `${base()}/repositories/${apiRepo}/policy-groups`, {
          body: {
            assignments: [
              { policyGroupId: acme().policyGroups["Base images"]!.id, branchNames: ["main", "release"] },
              { policyGroupId: acme().policyGroups["Security"]!.id, branchNames: ["release"] }
            ]
          }
        }),
        200
      )
      const answer = expectJson(await patch(apiRepo, { branchNames: ["main", "develop"] }), 200)
      expect(answer).toStrictEqual({
        repository: {
          id: apiRepo,
          fullName: "acme/api",
          assignedTeamId: acme().teams["Platform"],
          assignedRoutineId: acme().routines["Platform/Weekly"],
          branches: [{ branchName: "main", scan: { status: "queued" } }, { branchName: "develop", scan: { status: "queued" } }]
        },
        scans: [{ branchName: "develop", status: "queued" }]
      })
      expect(await repositoryOf(apiRepo)).toStrictEqual(answer.repository)
      const assignments = expectJson(await host().request("GET", `${base()}/repositories/${apiRepo}/policy-groups`), 200)
      expect(assignments.trackedBranchNames).toStrictEqual(["main", "develop"])
      const explicit = assignments.items.filter((a: any) => a.source === "repository_assignment")
      expect(explicit.map((a: any) => [a.name, a.branchNames])).toStrictEqual([["Base images", ["main"]]])
      const scans = expectJson(await host().request("GET", `${base()}/repositories/${apiRepo}/scans`), 200).items
      expect(scans.map((s: any) => [s.branchName, s.trigger]).sort()).toStrictEqual([["develop", "onboarding"], ["main", "onboarding"]])
      expectProblem(await host().request("GET", `${base()}/repositories/${apiRepo}/scans?branch=release`), 400, { paths: ["branch"] })
      expect((await auditRows(host()))[0]).toMatchObject({ action: "repository.update", resourceType: "repository", resourceId: apiRepo })
    })

    it("moves it to another team with a routine of that team; onboarding's rules refuse the rest and change nothing", async () => {
      const before = await repositoryOf(apiRepo)
      const refusals: Array<[unknown, string, string]> = [
        [{ branchNames: ["develop"] }, "/problems/default-branch-not-included", "branchNames"],
        [{ branchNames: ["main", "main"] }, "/problems/duplicate-branch-name", "branchNames[1]"],
        [{ branchNames: ["main", "nope"] }, "/problems/branch-not-available", "branchNames[1]"],
        [{ branchNames: [] }, "/problems/validation-error", "branchNames"],
        [{ assignedTeamId: acme().teams["Payments"] }, "/problems/routine-team-mismatch", "assignedRoutineId"],
        [{ assignedRoutineId: acme().routines["Loose"] }, "/problems/routine-without-team", "assignedRoutineId"],
        [{ assignedTeamId: "team_unknown" }, "/problems/invalid-reference-in-body", "assignedTeamId"],
        [{ assignedRoutineId: host().ids[1]!.routines["Ops/Weekly"] }, "/problems/invalid-reference-in-body", "assignedRoutineId"],
        [{ vcsConnectionId: acme().vcsConnections["acme"] }, "/problems/validation-error", "vcsConnectionId"]
      ]
      for (const [body, type, path] of refusals) expectProblem(await patch(apiRepo, body), 400, { type, paths: [path] })
      expect(await repositoryOf(apiRepo)).toStrictEqual(before)

      const moved = expectJson(
        await patch(apiRepo, { assignedTeamId: acme().teams["Payments"], assignedRoutineId: acme().routines["Payments/Daily"] }),
        200
      )
      expect(moved.repository).toStrictEqual({
        ...before,
        assignedTeamId: acme().teams["Payments"],
        assignedRoutineId: acme().routines["Payments/Daily"]
      })
      expect(moved.scans).toStrictEqual([])
      // the routine now in use cannot be deleted, the one no longer used can
      expectProblem(await host().request("DELETE", `${base()}/routines/${acme().routines["Payments/Daily"]}`), 409)
    })

    it("needs repositories:manage; unknown and other organizations' repositories are 404", async () => {
      expectProblem(await patch(apiRepo, { branchNames: ["main"] }, secrets.readOnly), 403)
      expectProblem(await host().request("DELETE", `${base()}/repositories/${apiRepo}`, { key: secrets.draftsOnly }), 403)
      expectProblem(await patch("repo_unknown", { branchNames: ["main"] }), 404)
      const globex = host().ids[1]!
      const theirs = expectJson(
        await host().request("POST", `/api/v1/org/${globex.id}/repositories`, {
          key: secrets.otherOrg,
          body: {
            vcsConnectionId: globex.vcsConnections["globex"],
            externalRepoId: "2001",
            assignedTeamId: globex.teams["Ops"],
            assignedRoutineId: globex.routines["Ops/Weekly"],
            branchNames: ["main"]
          }
        }),
        201
      ).repository
      expectProblem(await patch(theirs.id, { branchNames: ["main"] }), 404)
      expectProblem(await host().request("DELETE", `${base()}/repositories/${theirs.id}`), 404)
    })

    it("untracks it (204): it is gone with its assignments and scans, audited, and can be tracked again", async () => {
      expect((await host().request("DELETE", `${base()}/repositories/${apiRepo}`, { key: secrets.automation })).status).toBe(204)
      expect(await repositoryOf(apiRepo)).toBeUndefined()
      expectProblem(await host().request("GET", `${base()}/repositories/${apiRepo}/policy-groups`), 404)
      expectProblem(await host().request("GET", `${base()}/repositories/${apiRepo}/scans`), 404)
      expectProblem(await host().request("DELETE", `${base()}/repositories/${apiRepo}`), 404)
      const rows = await auditRows(host())
      expect(rows.find((r) => r.action === "repository.delete")).toMatchObject({ resourceId: apiRepo, outcome: "success" })
      const available = expectJson(
        await host().request("GET", `${base()}/vcs-connections/${acme().vcsConnections["acme"]}/available-repos`),
        200
      )
      expect(available.items.find((r: any) => r.externalRepoId === "1001").tracked).toBe(false)
      const again = await onboard("1001", ["main"])
      expect(again.id).not.toBe(apiRepo)
      const assignments = expectJson(await host().request("GET", `${base()}/repositories/${again.id}/policy-groups`), 200)
      expect(assignments.items.filter((a: any) => a.source === "repository_assignment")).toStrictEqual([])
    })
  })

await onEveryStore("repository-admin", suite, { pglite: true })
