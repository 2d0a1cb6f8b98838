/**
 * HTTP tests of a tracked repository's policy groups and resolution (spec 4 rules 4-6; contract
 * 5): assignments replaced as a whole, the applyToAllRepos group, the rules' 400s naming their
 * paths, racing replacements, and resolution after a publish. Runs on the memory store and
 * PostgreSQL, over acme/api onboarded with main and release (onboarding itself: repositories.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest"
import { secrets } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore, useHost } from "./support/suites.js"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`repository policy groups and resolution (${storeName})`, () => {
    const host = useHost(makeStore)
    const acme = () => host().org
    const globex = () => host().ids[1]!
    const base = () => `/api/v1/org/${acme().id}`
    const group = (name: string) => acme().policyGroups[name]!
    const successRows = async () => (await auditRows(host())).filter((row) => row.outcome === "success")

    let apiRepositoryId = ""
    beforeAll(async () => {
      const onboarded = await host().request("POST", `${base()}/repositories`, {
        body: {
          vcsConnectionId: acme().vcsConnections["acme"],
          externalRepoId: "1001",
          assignedTeamId: acme().teams["Platform"],
          assignedRoutineId: acme().routines["Platform/Weekly"],
          branchNames: ["main", "release"]
        }
      })
      apiRepositoryId = expectJson(onboarded, 201).repository.id
    })

    describe("repository policy groups", () => {
      const path = () => `${base()}/repositories/${apiRepositoryId}/policy-groups`
      const everywhere = (branchNames: ReadonlyArray<string>) => ({
        id: group("Everywhere").id,
        name: "Everywhere",
        source: "all_repositories",
        branchNames,
        assignmentState: "active"
      })
      const explicit = (name: string, branchNames: ReadonlyArray<string>) => ({
        id: group(name).id,
        name,
        source: "repository_assignment",
        branchNames,
        assignmentState: "active"
      })
      const replace = (assignments: unknown, key?: string) =>
        host().request("POST", path(), { body: { assignments }, ...(key !== undefined ? { key } : {}) })
      const read = async () => expectJson(await host().request("GET", path()), 200)

      /** The POST is rejected with 400 naming `paths` and the assignments stay as they were. */
      const expectRejected = async (assignments: unknown, paths: ReadonlyArray<string>, type?: string) => {
        const before = await read()
        expectProblem(await replace(assignments), 400, { paths, ...(type !== undefined ? { type } : {}) })
        expect(await read()).toStrictEqual(before)
      }

      it("starts with the applyToAllRepos group on every tracked branch", async () => {
        expect(await read()).toStrictEqual({ trackedBranchNames: ["main", "release"], items: [everywhere(["main", "release"])] })
      })

      it("rule 4: POST sets the complete set and answers the resulting view", async () => {
        const body = expectJson(
          await replace([
            { policyGroupId: group("Base images").id, branchNames: ["main", "release"] },
            { policyGroupId: group("Security").id, branchNames: ["main"] }
          ]),
          200
        )
        const expected = {
          trackedBranchNames: ["main", "release"],
          items: [everywhere(["main", "release"]), explicit("Base images", ["main", "release"]), explicit("Security", ["main"])]
        }
        expect(body).toStrictEqual(expected)
        expect(await read()).toStrictEqual(expected)
      })

      it("rule 4: an omitted group and an omitted branch are removed", async () => {
        const body = expectJson(await replace([{ policyGroupId: group("Security").id, branchNames: ["release"] }]), 200)
        const expected = {
          trackedBranchNames: ["main", "release"],
          items: [everywhere(["main", "release"]), explicit("Security", ["release"])]
        }
        expect(body).toStrictEqual(expected)
        expect(await read()).toStrictEqual(expected)
      })

      it("rule 4: an empty array removes every explicit assignment and keeps the applyToAllRepos group", async () => {
        const body = expectJson(await replace([]), 200)
        const expected = { trackedBranchNames: ["main", "release"], items: [everywhere(["main", "release"])] }
        expect(body).toStrictEqual(expected)
        expect(await read()).toStrictEqual(expected)
        const rows = (await successRows()).filter((r) => r.action === "assignments.replace" && r.resourceId === apiRepositoryId)
        expect(rows).toHaveLength(3)
      })

      it("racing replacements leave exactly one of the requested sets, never a mix", async () => {
        const sets = [
          [{ policyGroupId: group("Base images").id, branchNames: ["main"] }],
          [{ policyGroupId: group("Security").id, branchNames: ["release"] }],
          [
            { policyGroupId: group("Security").id, branchNames: ["main", "release"] },
            { policyGroupId: group("Base images").id, branchNames: ["release"] }
          ]
        ]
        const answers = await Promise.all([...sets, ...sets].map((assignments) => replace(assignments)))
        for (const answer of answers) expectJson(answer, 200)
        const explicitItems = (await read()).items.filter((i: any) => i.source === "repository_assignment")
        const final = explicitItems.map((i: any) => ({ policyGroupId: i.id, branchNames: i.branchNames }))
        expect(sets).toContainEqual(final)
        expectJson(await replace([]), 200)
      })

      it("rule 5: an applyToAllRepos group is rejected as an individual assignment", async () => {
        expectJson(await replace([{ policyGroupId: group("Security").id, branchNames: ["main"] }]), 200)
        await expectRejected([{ policyGroupId: group("Everywhere").id, branchNames: ["main"] }], ["assignments[0].policyGroupId"])
        await expectRejected(
          [
            { policyGroupId: group("Base images").id, branchNames: ["main"] },
            { policyGroupId: group("Everywhere").id, branchNames: ["release"] }
          ],
          ["assignments[1].policyGroupId"],
          "/problems/all-repos-group-not-assignable"
        )
      })

      it("rule 6: a branch not tracked for the repository is rejected naming `assignments[i].branchNames[j]`", async () => {
        // develop exists on the provider but is not tracked
        await expectRejected([{ policyGroupId: group("Base images").id, branchNames: ["main", "develop"] }], [
          "assignments[0].branchNames[1]"
        ], "/problems/branch-not-tracked")
        await expectRejected(
          [
            { policyGroupId: group("Base images").id, branchNames: ["main"] },
            { policyGroupId: group("Security").id, branchNames: ["release", "main", "no-such-branch"] }
          ],
          ["assignments[1].branchNames[2]"]
        )
      })

      it("an unknown group id in the body, or another organization's, is a 400 naming its path", async () => {
        await expectRejected([{ policyGroupId: "pg_00000000000000000000000000", branchNames: ["main"] }], ["assignments[0].policyGroupId"])
        await expectRejected([{ policyGroupId: globex().policyGroups["Globex images"]!.id, branchNames: ["main"] }], [
          "assignments[0].policyGroupId"
        ])
        await expectRejected([{ policyGroupId: "Base images", branchNames: ["main"] }], ["assignments[0].policyGroupId"])
      })

      it("a malformed body, a duplicate group and an empty branch list are 400s naming their path", async () => {
        const before = await read()
        expectProblem(await host().request("POST", path(), { body: {} }), 400, { paths: ["assignments"] })
        expectProblem(await host().request("POST", path(), { body: { assignments: "all" } }), 400, { paths: ["assignments"] })
        expectProblem(await host().request("POST", path(), { raw: "{", headers: { "content-type": "application/json" } }), 400)
        // every offending field at once, not only the first
        expectProblem(await replace([{}, { policyGroupId: "x", branchNames: [1] }]), 400, {
          paths: [
            "assignments[0].policyGroupId",
            "assignments[0].branchNames",
            "assignments[1].policyGroupId",
            "assignments[1].branchNames[0]"
          ]
        })
        await expectRejected([{ policyGroupId: group("Security").id }], ["assignments[0].branchNames"])
        await expectRejected([{ policyGroupId: group("Security").id, branchNames: "main" }], ["assignments[0].branchNames"])
        await expectRejected([{ policyGroupId: group("Security").id, branchNames: [""] }], ["assignments[0].branchNames[0]"])
        await expectRejected([{ policyGroupId: group("Security").id, branchNames: [] }], ["assignments[0].branchNames"])
        await expectRejected(
          [
            { policyGroupId: group("Security").id, branchNames: ["main"] },
            { policyGroupId: group("Security").id, branchNames: ["release"] }
          ],
          ["assignments[1].policyGroupId"]
        )
        await expectRejected([{ policyGroupId: group("Security").id, branchNames: ["main", "main"] }], ["assignments[0].branchNames[1]"])
        expect(await read()).toStrictEqual(before)
      })

      it("an unknown repository in the path is a 404 on GET and POST, also another organization's", async () => {
        const globexRepo = expectJson(
          await host().request("POST", `/api/v1/org/${globex().id}/repositories`, {
            key: secrets.otherOrg,
            body: {
              vcsConnectionId: globex().vcsConnections["globex"],
              externalRepoId: "2001",
              assignedTeamId: globex().teams["Ops"],
              assignedRoutineId: globex().routines["Ops/Weekly"],
              branchNames: ["main"]
            }
          }),
          201
        )
        for (const id of ["repo_00000000000000000000000000", "nope", globexRepo.repository.id]) {
          const target = `${base()}/repositories/${id}/policy-groups`
          expectProblem(await host().request("GET", target), 404, { type: "/problems/repository-not-found" })
          expectProblem(await host().request("POST", target, { body: { assignments: [] } }), 404, {
            type: "/problems/repository-not-found"
          })
        }
        // and globex's own view is untouched by the attempt
        const view = expectJson(
          await host().request("GET", `/api/v1/org/${globex().id}/repositories/${globexRepo.repository.id}/policy-groups`, {
            key: secrets.otherOrg
          }),
          200
        )
        expect(view).toStrictEqual({ trackedBranchNames: ["main"], items: [] })
      })

      it("needs repositories:read to read and assignments:manage to replace (403 before 400 and 404)", async () => {
        expectJson(await host().request("GET", path(), { key: secrets.readOnly }), 200)
        expectProblem(await host().request("GET", path(), { key: secrets.draftsOnly }), 403)
        const before = await read()
        expectProblem(await replace([], secrets.readOnly), 403, { type: "/problems/permission-denied" })
        expectProblem(await replace("malformed", secrets.readOnly), 403)
        expectProblem(
          await host().request("POST", `${base()}/repositories/repo_00000000000000000000000000/policy-groups`, {
            key: secrets.readOnly,
            body: { assignments: [] }
          }),
          403
        )
        expect(await read()).toStrictEqual(before)
        expectJson(await replace([], secrets.automation), 200)
      })
    })

    describe("GET repositories/{id}/resolve", () => {
      const resolvePath = (query: string) => `${base()}/repositories/${apiRepositoryId}/resolve${query}`
      const base_ = () => group("Base images")

      it("resolves a published mapping on an assigned branch and nothing on a branch the group is not assigned to", async () => {
        expectJson(
          await host().request("POST", `${base()}/policy-groups/${base_().id}/phases/${base_().phases["Curated"]}/mappings`, {
            body: { fromImage: "node:20", toImage: "node:20.11.1", reason: "pin the runtime" }
          }),
          201
        )
        expectJson(await host().request("POST", `${base()}/policy-groups/${base_().id}/publish`), 200)
        expectJson(
          await host().request("POST", `${base()}/repositories/${apiRepositoryId}/policy-groups`, {
            body: { assignments: [{ policyGroupId: base_().id, branchNames: ["main"] }] }
          }),
          200
        )

        const onMain = expectJson(await host().request("GET", resolvePath("?image=node:20&branch=main")), 200)
        expect(onMain.resolved).not.toBeNull()
        expect(onMain.resolved.toImage).toBe("node:20.11.1")
        expect(onMain.resolved.policyGroupId).toBe(base_().id)
        expect(onMain.resolved.phaseId).toBe(base_().phases["Curated"])
        expect(onMain.image).toBeTypeOf("string")
        expect(Array.isArray(onMain.considered)).toBe(true)

        const onDefault = expectJson(await host().request("GET", resolvePath("?image=node:20")), 200)
        expect(onDefault.resolved?.toImage).toBe("node:20.11.1")

        const onRelease = expectJson(await host().request("GET", resolvePath("?image=node:20&branch=release")), 200)
        expect(onRelease.resolved).toBeNull()

        const unmapped = expectJson(await host().request("GET", resolvePath("?image=python:3.12&branch=main")), 200)
        expect(unmapped.resolved).toBeNull()

        expectJson(await host().request("GET", resolvePath("?image=node:20&branch=main&platform=linux/amd64")), 200)
      })

      it("a draft mapping that is not published does not resolve", async () => {
        expectJson(
          await host().request("POST", `${base()}/policy-groups/${base_().id}/phases/${base_().phases["Curated"]}/mappings`, {
            key: secrets.draftsOnly,
            body: { fromImage: "redis:7", toImage: "redis:7.2.4" }
          }),
          201
        )
        const answer = expectJson(await host().request("GET", resolvePath("?image=redis:7&branch=main")), 200)
        expect(answer.resolved).toBeNull()
      })

      it("an invalid image, an untracked branch and an invalid platform are 400s naming `image`, `branch`, `platform`", async () => {
        for (const image of ["NOT@@valid", "node:", "node@sha256:123", "-node:20", "Node:20"]) {
          expectProblem(await host().request("GET", resolvePath(`?image=${encodeURIComponent(image)}&branch=main`)), 400, {
            paths: ["image"]
          })
        }
        expectProblem(await host().request("GET", resolvePath("?branch=main")), 400, { paths: ["image"] })
        expectProblem(await host().request("GET", resolvePath("?image=&branch=main")), 400, { paths: ["image"] })
        expectProblem(await host().request("GET", resolvePath(`?image=${"a".repeat(1025)}`)), 400, { paths: ["image"] })
        for (const branch of ["develop", "nope", ""]) {
          expectProblem(await host().request("GET", resolvePath(`?image=node:20&branch=${branch}`)), 400, { paths: ["branch"] })
        }
        for (const platform of ["linux", "bad", "linux/amd64/v8/extra"]) {
          expectProblem(await host().request("GET", resolvePath(`?image=node:20&branch=main&platform=${platform}`)), 400, {
            paths: ["platform"]
          })
        }
      })

      it("an unknown repository is a 404", async () => {
        for (const id of ["repo_00000000000000000000000000", "nope"]) {
          expectProblem(await host().request("GET", `${base()}/repositories/${id}/resolve?image=node:20`), 404)
        }
      })

      it("needs policy:read", async () => {
        expectJson(await host().request("GET", resolvePath("?image=node:20"), { key: secrets.readOnly }), 200)
        expectJson(await host().request("GET", resolvePath("?image=node:20"), { key: secrets.draftsOnly }), 200)
      })
    })
  })

await onEveryStore("repository-policy-groups", suite)
