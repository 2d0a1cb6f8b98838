/**
 * HTTP tests of tracked repositories (spec 2, 3, 4 rules 2-3, 7; contracts 4, 5): onboarding with
 * its rules and statuses, the list and its pagination, and permissions. Runs on the memory store and
 * PostgreSQL. A repository's policy groups and resolution: repositories.policyGroups.test.ts.
 */
import { describe, expect, it } from "vitest"
import { secrets } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore, readAllPages, useHost } from "./support/suites.js"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`repository routes (${storeName})`, () => {
    const host = useHost(makeStore)
    const acme = () => host().org
    const globex = () => host().ids[1]!
    const base = () => `/api/v1/org/${acme().id}`
    const group = (name: string) => acme().policyGroups[name]!

    /** A valid onboarding body for acme/api (1001) through the active fixture connection. */
    const onboardBody = (overrides: Record<string, unknown> = {}) => ({
      vcsConnectionId: acme().vcsConnections["acme"],
      externalRepoId: "1001",
      assignedTeamId: acme().teams["Platform"],
      assignedRoutineId: acme().routines["Platform/Weekly"],
      branchNames: ["main", "release"],
      ...overrides
    })

    const listRepositories = async () => (await readAllPages(host(), `${base()}/repositories`, { limit: 200 })).items
    const successRows = async () => (await auditRows(host())).filter((row) => row.outcome === "success")

    /** The request is rejected with `status` and leaves repositories and the audit trail as they were. */
    const expectRejectedWithoutChange = async (
      body: unknown,
      status: number,
      options: { readonly type?: string; readonly paths?: ReadonlyArray<string>; readonly key?: string; readonly raw?: string } = {}
    ) => {
      const before = await listRepositories()
      const auditBefore = await successRows()
      const answer = await host().request("POST", `${base()}/repositories`, {
        ...(options.raw !== undefined ? { raw: options.raw, headers: { "content-type": "application/json" } } : { body }),
        ...(options.key !== undefined ? { key: options.key } : {})
      })
      const problem = expectProblem(answer, status, options)
      expect(await listRepositories()).toStrictEqual(before)
      expect(await successRows()).toStrictEqual(auditBefore)
      return problem
    }

    let apiRepositoryId = ""

    describe("POST repositories", () => {
      it("answers 201 with the repository and one queued scan per branch, in exactly the documented shape", async () => {
        const answer = await host().request("POST", `${base()}/repositories`, { body: onboardBody() })
        const body = expectJson(answer, 201)
        expect(body.repository.id).toMatch(/^repo_[0-9a-z]+$/)
        expect(body.repository.id).not.toBe("1001")
        expect(body).toStrictEqual({
          repository: {
            id: body.repository.id,
            fullName: "acme/api",
            assignedTeamId: acme().teams["Platform"],
            assignedRoutineId: acme().routines["Platform/Weekly"],
            branches: [
              { branchName: "main", scan: { status: "queued" } },
              { branchName: "release", scan: { status: "queued" } }
            ]
          },
          scans: [
            { branchName: "main", status: "queued" },
            { branchName: "release", status: "queued" }
          ]
        })
        apiRepositoryId = body.repository.id
        const rows = (await successRows()).filter((r) => r.action === "repository.create" && r.resourceId === apiRepositoryId)
        expect(rows).toHaveLength(1)
      })

      it("lists the tracked repository, also filtered by repositoryId", async () => {
        const expected = {
          id: apiRepositoryId,
          fullName: "acme/api",
          assignedTeamId: acme().teams["Platform"],
          assignedRoutineId: acme().routines["Platform/Weekly"],
          branches: [
            { branchName: "main", scan: { status: "queued" } },
            { branchName: "release", scan: { status: "queued" } }
          ]
        }
        const all = expectJson(await host().request("GET", `${base()}/repositories`), 200)
        expect(all.items).toStrictEqual([expected])
        const one = expectJson(await host().request("GET", `${base()}/repositories?repositoryId=${apiRepositoryId}`), 200)
        expect(one).toStrictEqual({ items: [expected] })
        for (const other of ["repo_00000000000000000000000000", "1001", "x"]) {
          const none = expectJson(await host().request("GET", `${base()}/repositories?repositoryId=${other}`), 200)
          expect(none).toStrictEqual({ items: [] })
        }
      })

      it("answers 409 for a repository already tracked, whatever team, routine or branches, and changes nothing", async () => {
        for (
          const body of [
            onboardBody(),
            onboardBody({ branchNames: ["main", "develop"] }),
            onboardBody({ assignedTeamId: acme().teams["Payments"], assignedRoutineId: acme().routines["Payments/Daily"] })
          ]
        ) {
          const problem = await expectRejectedWithoutChange(body, 409, { type: "/problems/repository-already-tracked" })
          expect(problem.title).toBe("Conflict")
        }
        const [repository] = await listRepositories()
        expect(repository.assignedTeamId).toBe(acme().teams["Platform"])
        expect(repository.branches.map((b: any) => b.branchName)).toStrictEqual(["main", "release"])
      })

      it("rule 2: the provider default branch must be among branchNames (400 naming `branchNames`)", async () => {
        await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1003", branchNames: ["release"] }), 400, {
          paths: ["branchNames"]
        })
        // acme/web has develop, but not as default
        await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1002", branchNames: ["develop"] }), 400, {
          type: "/problems/default-branch-not-included",
          paths: ["branchNames"]
        })
      })

      it("rule 2: a routine of another team is rejected (400 naming `assignedRoutineId`)", async () => {
        await expectRejectedWithoutChange(
          onboardBody({ externalRepoId: "1002", branchNames: ["main"], assignedRoutineId: acme().routines["Payments/Daily"] }),
          400,
          { type: "/problems/routine-team-mismatch", paths: ["assignedRoutineId"] }
        )
      })

      it("rule 2: a routine without team is rejected (400 naming `assignedRoutineId`)", async () => {
        await expectRejectedWithoutChange(
          onboardBody({ externalRepoId: "1002", branchNames: ["main"], assignedRoutineId: acme().routines["Loose"] }),
          400,
          { type: "/problems/routine-without-team", paths: ["assignedRoutineId"] }
        )
      })

      it("a branch the provider does not have is rejected naming `branchNames[i]`", async () => {
        await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1002", branchNames: ["main", "release"] }), 400, {
          paths: ["branchNames[1]"]
        })
        await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1003", branchNames: ["main", "main2", "nope"] }), 400, {
          paths: ["branchNames[1]"]
        })
      })

      it("a duplicate branch is rejected naming the repeated entry", async () => {
        await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1002", branchNames: ["main", "develop", "main"] }), 400, {
          paths: ["branchNames[2]"]
        })
      })

      it("an inactive connection is rejected with 400 naming `vcsConnectionId`", async () => {
        await expectRejectedWithoutChange(
          onboardBody({ vcsConnectionId: acme().vcsConnections["acme-old"], externalRepoId: "77", branchNames: ["master"] }),
          400,
          { type: "/problems/connection-not-active", paths: ["vcsConnectionId"] }
        )
      })

      it("a connection whose provider is not configured answers a clear problem, never a 5xx", async () => {
        const answer = await host().request("POST", `${base()}/repositories`, {
          body: onboardBody({ vcsConnectionId: acme().vcsConnections["acme-enterprise"], externalRepoId: "1002", branchNames: ["main"] })
        })
        expect(answer.status).toBeLessThan(500)
        expectProblem(answer, 409, { type: "/problems/vcs-provider-not-configured" })
        expect(await listRepositories()).toHaveLength(1)
      })

      it("an unknown id in the body, or one of another organization, is a 400 naming its field", async () => {
        const cases: ReadonlyArray<[string, Record<string, unknown>]> = [
          ["vcsConnectionId", { vcsConnectionId: "vcs_00000000000000000000000000" }],
          ["vcsConnectionId", { vcsConnectionId: globex().vcsConnections["globex"] }],
          ["assignedTeamId", { assignedTeamId: "team_00000000000000000000000000" }],
          ["assignedTeamId", { assignedTeamId: globex().teams["Ops"] }],
          ["assignedRoutineId", { assignedRoutineId: "rtn_00000000000000000000000000" }],
          ["assignedRoutineId", { assignedRoutineId: globex().routines["Ops/Weekly"] }],
          ["externalRepoId", { externalRepoId: "9999" }],
          // globex/app exists on another connection of another organization
          ["externalRepoId", { externalRepoId: "2001" }]
        ]
        for (const [path, overrides] of cases) {
          const problem = await expectRejectedWithoutChange(
            onboardBody({ externalRepoId: "1002", branchNames: ["main"], ...overrides }),
            400,
            {
              paths: [path]
            }
          )
          expect(JSON.stringify(problem)).not.toContain("globex/app")
        }
      })

      it("a malformed body is a 400 naming each offending field", async () => {
        const cases: ReadonlyArray<[unknown, ReadonlyArray<string>]> = [
          [onboardBody({ branchNames: "main" }), ["branchNames"]],
          [onboardBody({ externalRepoId: 1002 }), ["externalRepoId"]],
          [onboardBody({ assignedTeamId: 7 }), ["assignedTeamId"]],
          [onboardBody({ assignedTeamId: "not-a-team-id" }), ["assignedTeamId"]],
          [onboardBody({ vcsConnectionId: null }), ["vcsConnectionId"]],
          [onboardBody({ externalRepoId: "" }), ["externalRepoId"]],
          [onboardBody({ branchNames: ["main", 3] }), ["branchNames[1]"]],
          [onboardBody({ branchNames: ["main", ""] }), ["branchNames[1]"]],
          [onboardBody({ branchNames: [" main"] }), ["branchNames[0]"]],
          [{ ...onboardBody(), assignedRoutineId: undefined }, ["assignedRoutineId"]],
          [{}, ["vcsConnectionId", "externalRepoId", "assignedTeamId", "assignedRoutineId", "branchNames"]]
        ]
        for (const [body, paths] of cases) await expectRejectedWithoutChange(body, 400, { paths })
      })

      it("an empty branchNames array is a 400 naming `branchNames` itself", async () => {
        const problem = await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1002", branchNames: [] }), 400, {
          paths: ["branchNames"]
        })
        expect(problem.errors.map((e: any) => e.path)).toStrictEqual(["branchNames"])
      })

      it("a body that is not JSON, or not an object, is a 400 problem", async () => {
        await expectRejectedWithoutChange(undefined, 400, { raw: "{\"vcsConnectionId\": " })
        await expectRejectedWithoutChange([onboardBody()], 400)
        await expectRejectedWithoutChange("text", 400)
        await expectRejectedWithoutChange(undefined, 400, { raw: "" })
        const before = await listRepositories()
        expectProblem(
          await host().request("POST", `${base()}/repositories`, {
            raw: JSON.stringify(onboardBody({ externalRepoId: "1002", branchNames: ["main"] })),
            headers: { "content-type": "text/plain" }
          }),
          400
        )
        expect(await listRepositories()).toStrictEqual(before)
      })

      it("a body over 1 MiB is a 413 problem", async () => {
        const huge = onboardBody({ externalRepoId: "1002", padding: "x".repeat(1024 * 1024 + 10) })
        await expectRejectedWithoutChange(huge, 413)
      })

      it("two racing onboardings of one repository track it once: one 201 and one 409", async () => {
        const body = onboardBody({ externalRepoId: "1002", branchNames: ["main"] })
        const answers = await Promise.all([0, 1, 2].map(() => host().request("POST", `${base()}/repositories`, { body })))
        const statuses = answers.map((a) => a.status).sort()
        expect(statuses).toStrictEqual([201, 409, 409])
        for (const answer of answers.filter((a) => a.status === 409)) expectProblem(answer, 409)
        const web = (await listRepositories()).filter((r) => r.fullName === "acme/web")
        expect(web).toHaveLength(1)
        const created = (await successRows()).filter((r) => r.action === "repository.create" && r.resourceId === web[0].id)
        expect(created).toHaveLength(1)
      })
    })

    describe("pagination of GET repositories", () => {
      it("visits every repository once, in order, with nextCursor only while more rows exist", async () => {
        expectJson(
          await host().request("POST", `${base()}/repositories`, {
            key: secrets.automation,
            body: onboardBody({ externalRepoId: "1003", branchNames: ["main"] })
          }),
          201
        )
        const all = expectJson(await host().request("GET", `${base()}/repositories`), 200)
        expect(all.nextCursor).toBeUndefined()
        expect(all.items.map((r: any) => r.fullName).sort()).toStrictEqual(["acme/api", "acme/policy", "acme/web"])
        expect(new Set(all.items.map((r: any) => r.id)).size).toBe(3)

        for (const limit of [1, 2]) {
          const walked = await readAllPages(host(), `${base()}/repositories`, { limit })
          expect(walked.items).toStrictEqual(all.items)
          expect(walked.pages).toBe(Math.ceil(3 / limit))
        }
        const exact = expectJson(await host().request("GET", `${base()}/repositories?limit=3`), 200)
        expect(exact.items).toStrictEqual(all.items)
        expect(exact.nextCursor).toBeUndefined()
      })

      it("keeps the repositoryId filter on every page", async () => {
        const walked = await readAllPages(host(), `${base()}/repositories?repositoryId=${apiRepositoryId}`, { limit: 1 })
        expect(walked.items.map((r: any) => r.id)).toStrictEqual([apiRepositoryId])
      })

      it("rejects limit 0, 201 and x naming `limit`, and a mangled cursor naming `cursor`", async () => {
        for (const limit of ["0", "201", "x"]) {
          expectProblem(await host().request("GET", `${base()}/repositories?limit=${limit}`), 400, { paths: ["limit"] })
        }
        const first = expectJson(await host().request("GET", `${base()}/repositories?limit=1`), 200)
        const cursor: string = first.nextCursor
        // the character before the last, replaced by one it is not (a replacement equal to it would leave the cursor valid)
        const mangled = `${cursor.slice(0, -2)}${cursor.at(-2) === "A" ? "B" : "A"}${cursor.slice(-1)}`
        for (const bad of [mangled, cursor.slice(1), "abc"]) {
          expectProblem(await host().request("GET", `${base()}/repositories?cursor=${encodeURIComponent(bad)}`), 400, {
            paths: ["cursor"]
          })
        }
      })
    })

    describe("permissions on repository routes", () => {
      it("a read-only key can GET repositories but POST answers 403, also before a body or size problem", async () => {
        expectJson(await host().request("GET", `${base()}/repositories`, { key: secrets.readOnly }), 200)
        await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1002" }), 403, {
          key: secrets.readOnly,
          type: "/problems/permission-denied"
        })
        await expectRejectedWithoutChange({}, 403, { key: secrets.readOnly })
        await expectRejectedWithoutChange(undefined, 403, { key: secrets.readOnly, raw: "{oops" })
        await expectRejectedWithoutChange(onboardBody({ padding: "x".repeat(1024 * 1024 + 10) }), 403, { key: secrets.readOnly })
      })

      it("a drafts-only key cannot list, create repositories or publish", async () => {
        expectProblem(await host().request("GET", `${base()}/repositories`, { key: secrets.draftsOnly }), 403)
        await expectRejectedWithoutChange(onboardBody({ externalRepoId: "1002" }), 403, { key: secrets.draftsOnly })
        const problem = expectProblem(
          await host().request("POST", `${base()}/policy-groups/${group("Base images").id}/publish`, { key: secrets.draftsOnly }),
          403
        )
        expect(problem.type).toBe("/problems/permission-denied")
      })

      it("permission errors come after the organization check (404 for a foreign org, even without the permission)", async () => {
        const other = `/api/v1/org/${globex().id}`
        for (const key of [secrets.readOnly, secrets.draftsOnly]) {
          expectProblem(await host().request("POST", `${other}/repositories`, { key, body: onboardBody() }), 404)
          expectProblem(await host().request("GET", `${other}/repositories`, { key }), 404)
          expectProblem(await host().request("POST", `${other}/policy-groups/${group("Base images").id}/publish`, { key }), 404)
        }
        expectProblem(await host().request("POST", `${base()}/repositories`, { key: null, body: onboardBody() }), 401)
        expectProblem(await host().request("POST", `${base()}/repositories`, { key: secrets.freeEdition, body: onboardBody() }), 404)
        expectProblem(
          await host().request("POST", "/api/v1/org/org_free/repositories", { key: secrets.freeEdition, body: onboardBody() }),
          403,
          {
            type: "/problems/automation-api-not-included"
          }
        )
      })
    })
  })

await onEveryStore("repositories", suite)
