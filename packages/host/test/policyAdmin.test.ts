/**
 * Policy administration over HTTP (issue 15, "Policy groups" and "Draft mappings"): groups and
 * phases created, changed and deleted through the API, a phase's source changed with one source
 * of truth kept (spec 1), draft mappings removed and the draft compared with published policy;
 * each change audited and announced, every refusal changing nothing. On every store.
 */
import { FixtureVcs } from "@image-policy/adapters"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, onEveryStore, readAllPages } from "./support/suites.js"

const api = "/api/v1/org/org_acme"
const policyEvents = [
  "service.policy_group.published",
  "service.policy_group.updated",
  "service.policy_mapping.created",
  "service.policy_mapping.updated",
  "service.policy_mapping.removed"
]

await onEveryStore("policy-admin", (storeName, makeStore) =>
  describe(`policy administration over HTTP (${storeName})`, () => {
    let host: TestHost
    let fixture: ReturnType<typeof FixtureVcs.make>
    let hookId: string
    let repositoryId: string

    beforeAll(async () => {
      fixture = FixtureVcs.make()
      host = await startTestHost({
        store: makeStore(),
        vcs: { fixture: fixture.provider },
        services: { allowUnsafeWebhookTargets: true },
        deliveryWorker: false
      })
      // an organization-scoped destination: its deliveries list every policy event
      const hook = await host.request("POST", `${api}/webhooks`, {
        body: {
          name: "policy",
          type: "generic",
          endpointUrl: "http://127.0.0.1:9/hook",
          scope: { kind: "organization" },
          events: policyEvents
        }
      })
      hookId = expectJson(hook, 201).id
      const onboarded = await host.request("POST", `${api}/repositories`, {
        body: {
          vcsConnectionId: host.org.vcsConnections["acme"],
          externalRepoId: "1001",
          assignedTeamId: host.org.teams["Platform"],
          assignedRoutineId: host.org.routines["Platform/Weekly"],
          branchNames: ["main"]
        }
      })
      repositoryId = expectJson(onboarded, 201).repository.id
    })
    afterAll(() => host?.stop())

    const groups = `${api}/policy-groups`
    const events = async () =>
      (await readAllPages(host, `${api}/webhooks/${hookId}/deliveries`, { limit: 200 })).items.map((d: any) => d.type as string)
    const count = (types: ReadonlyArray<string>, type: string) => types.filter((t) => t === type).length
    const createGroup = async (body: Record<string, unknown>) => expectJson(await host.request("POST", groups, { body }), 201)
    const createPhase = async (groupId: string, body: Record<string, unknown>) =>
      expectJson(await host.request("POST", `${groups}/${groupId}/phases`, { body }), 201)
    const details = async (groupId: string) => expectJson(await host.request("GET", `${groups}/${groupId}/details`), 200)
    const draft = async (groupId: string) => expectJson(await host.request("GET", `${groups}/${groupId}/draft`), 200)
    const publish = async (groupId: string) => expectJson(await host.request("POST", `${groups}/${groupId}/publish`), 200)
    const postMapping = async (groupId: string, phaseId: string, fromImage: string, toImage: string) =>
      expectJson(await host.request("POST", `${groups}/${groupId}/phases/${phaseId}/mappings`, { body: { fromImage, toImage } }), 201)
    const drafts = async (groupId: string, phaseId: string) =>
      expectJson(await host.request("GET", `${groups}/${groupId}/phases/${phaseId}/mappings?limit=200`), 200).items as Array<any>
    const assign = (groupIds: ReadonlyArray<string>) =>
      host.request("POST", `${api}/repositories/${repositoryId}/policy-groups`, {
        body: { assignments: groupIds.map((policyGroupId) => ({ policyGroupId, branchNames: ["main"] })) }
      })

    describe("policy groups", () => {
      it("creates a group (201) with its settings, lists it and audits and announces the change", async () => {
        const before = await events()
        const group = await createGroup({
          name: "Runtime images",
          notification: { teamId: host.org.teams["Payments"] },
          cooldownSeconds: 600
        })
        expect(group).toEqual({
          id: expect.stringMatching(/^pg_/),
          name: "Runtime images",
          applyToAllRepos: false,
          notification: { teamId: host.org.teams["Payments"] },
          cooldownSeconds: 600,
          phases: []
        })
        expect(expectJson(await host.request("GET", `${groups}/${group.id}`, { key: secrets.readOnly }), 200)).toEqual(group)
        const listed = await readAllPages(host, groups, { limit: 200 })
        expect(listed.items).toContainEqual({ id: group.id, name: "Runtime images", applyToAllRepos: false })
        expect(await details(group.id)).toEqual({
          id: group.id,
          name: "Runtime images",
          applyToAllRepos: false,
          phases: [],
          publishedMappings: []
        })
        expect((await events()).slice(before.length)).toEqual(["service.policy_group.updated"])
        expect((await auditRows(host)).find((r) => r.action === "policy_group.create" && r.resourceId === group.id)).toMatchObject({
          resourceType: "policy_group",
          outcome: "success"
        })
        // defaults: all-repositories off, inherited routing, the organization's cooldown
        const plain = await createGroup({ name: "Plain" })
        expect(plain).toMatchObject({ applyToAllRepos: false, notification: "inherit", cooldownSeconds: null })
      })

      it("refuses a taken name (409), an unknown team (400) and an invalid body (400), changing nothing", async () => {
        const audited = (await auditRows(host)).length
        const before = (await readAllPages(host, groups, { limit: 200 })).items
        expectProblem(await host.request("POST", groups, { body: { name: "Base images" } }), 409, {
          type: "/problems/policy-group-name-taken",
          paths: ["name"]
        })
        expectProblem(await host.request("POST", groups, { body: { name: "X", notification: { teamId: "team_unknown" } } }), 400, {
          paths: ["notification.teamId"]
        })
        expectProblem(await host.request("POST", groups, { body: { name: "", cooldownSeconds: -1, notification: "none" } }), 400, {
          paths: ["name", "cooldownSeconds", "notification"]
        })
        expectProblem(await host.request("POST", groups, { body: { name: "X" }, key: secrets.readOnly }), 403)
        expectProblem(await host.request("POST", groups, { body: { name: "X" }, key: secrets.draftsOnly }), 403)
        expect((await readAllPages(host, groups, { limit: 200 })).items).toEqual(before)
        const rejected = (await auditRows(host)).slice(0, (await auditRows(host)).length - audited)
        expect(rejected.every((r) => r.outcome === "rejected")).toBe(true)
      })

      it("changes a group's settings (PATCH), keeps names unique, 404 for an unknown or foreign group", async () => {
        const group = await createGroup({ name: "To rename" })
        const changed = expectJson(
          await host.request("PATCH", `${groups}/${group.id}`, { body: { name: "Renamed", notification: "disabled", cooldownSeconds: 0 } }),
          200
        )
        expect(changed).toMatchObject({
          id: group.id,
          name: "Renamed",
          notification: "disabled",
          cooldownSeconds: 0,
          applyToAllRepos: false
        })
        expect(expectJson(await host.request("PATCH", `${groups}/${group.id}`, { body: { cooldownSeconds: null } }), 200).cooldownSeconds)
          .toBe(null)
        expectProblem(await host.request("PATCH", `${groups}/${group.id}`, { body: { name: "Security" } }), 409, { paths: ["name"] })
        // keeping its own name is no conflict
        expectJson(await host.request("PATCH", `${groups}/${group.id}`, { body: { name: "Renamed" } }), 200)
        expectProblem(await host.request("PATCH", `${groups}/pg_unknown`, { body: { name: "Y" } }), 404)
        const foreign = host.ids[1]!.policyGroups["Globex images"]!.id
        expectProblem(await host.request("PATCH", `${groups}/${foreign}`, { body: { name: "Y" } }), 404)
        expectProblem(await host.request("GET", `${groups}/${foreign}`), 404)
        expectProblem(await host.request("DELETE", `${groups}/${foreign}`), 404)
      })

      it("refuses to delete or make all-repositories a group assigned to a repository (409), unless force=true", async () => {
        const group = await createGroup({ name: "Assigned" })
        const security = host.org.policyGroups["Security"]!.id
        expectJson(await assign([group.id, security]), 200)
        expectProblem(await host.request("DELETE", `${groups}/${group.id}`), 409, { type: "/problems/policy-group-assigned" })
        expectProblem(await host.request("DELETE", `${groups}/${group.id}?force=false`), 409)
        expectProblem(await host.request("PATCH", `${groups}/${group.id}`, { body: { applyToAllRepos: true } }), 409, {
          type: "/problems/policy-group-assigned"
        })
        expect(expectJson(await host.request("GET", `${groups}/${group.id}`), 200).applyToAllRepos).toBe(false)

        const phase = await createPhase(group.id, { name: "Main", sourceType: "internal" })
        await postMapping(group.id, phase.id, "nginx:1", "nginx:1.27.1")
        await publish(group.id)
        const before = await events()
        expect(await host.request("DELETE", `${groups}/${group.id}?force=true`)).toMatchObject({ status: 204, text: "" })
        expectProblem(await host.request("GET", `${groups}/${group.id}`), 404)
        expectProblem(await host.request("GET", `${groups}/${group.id}/details`), 404)
        // the repository keeps its other assignments
        const assignments = expectJson(await host.request("GET", `${api}/repositories/${repositoryId}/policy-groups`), 200)
        expect(assignments.items.map((a: any) => a.id)).not.toContain(group.id)
        expect(assignments.items.map((a: any) => a.id)).toContain(security)
        const emitted = (await events()).slice(before.length)
        expect(count(emitted, "service.policy_mapping.removed")).toBe(1)
        expect(count(emitted, "service.policy_group.updated")).toBe(1)
        const rows = await auditRows(host)
        expect(rows.find((r) => r.action === "policy_group.delete" && r.resourceId === group.id)).toBeDefined()
        expect(rows.find((r) => r.action === "assignments.replace" && r.resourceId === repositoryId)).toBeDefined()
        expectJson(await assign([]), 200)
      })

      it("deletes an unassigned group (204), and an all-repositories one it may become", async () => {
        const group = await createGroup({ name: "Short-lived" })
        expect(expectJson(await host.request("PATCH", `${groups}/${group.id}`, { body: { applyToAllRepos: true } }), 200).applyToAllRepos)
          .toBe(true)
        expect((await host.request("DELETE", `${groups}/${group.id}`)).status).toBe(204)
        expectProblem(await host.request("DELETE", `${groups}/${group.id}`), 404)
        // an assignment naming it now is an unknown group in the body
        expectProblem(await assign([group.id]), 400, { paths: ["assignments[0].policyGroupId"] })
      })
    })

    describe("phases", () => {
      it("adds internal and external phases in order, with unique names and a valid file", async () => {
        const group = await createGroup({ name: "Phased" })
        const first = await createPhase(group.id, { name: "First", sourceType: "internal" })
        expect(first).toEqual({ id: expect.stringMatching(/^ph_/), name: "First", sourceType: "internal", position: 0 })
        const file = {
          vcsConnectionId: host.org.vcsConnections["acme"],
          repositoryFullName: "acme/policy",
          branch: "main",
          path: "phased.json"
        }
        const external = await createPhase(group.id, { name: "File", sourceType: "external", external: file, position: 0 })
        expect(external).toEqual({
          id: expect.stringMatching(/^ph_/),
          name: "File",
          sourceType: "external",
          position: 0,
          external: { ...file, pollIntervalSeconds: 60, lastSyncedAt: null, lastError: null }
        })
        expect((await details(group.id)).phases.map((p: any) => p.name)).toEqual(["File", "First"])

        const phases = `${groups}/${group.id}/phases`
        expectProblem(await host.request("POST", phases, { body: { name: "First", sourceType: "internal" } }), 409, {
          type: "/problems/phase-name-taken",
          paths: ["name"]
        })
        expectProblem(await host.request("POST", phases, { body: { name: "X", sourceType: "external" } }), 400, {
          paths: ["external.vcsConnectionId", "external.repositoryFullName", "external.branch", "external.path"]
        })
        expectProblem(await host.request("POST", phases, { body: { name: "X", sourceType: "internal", external: file } }), 400, {
          paths: ["external"]
        })
        expectProblem(
          await host.request("POST", phases, {
            body: { name: "X", sourceType: "external", external: { ...file, vcsConnectionId: host.ids[1]!.vcsConnections["globex"] } }
          }),
          400,
          { paths: ["external.vcsConnectionId"] }
        )
        expectProblem(
          await host.request("POST", phases, {
            body: { name: "X", sourceType: "external", external: { ...file, pollIntervalSeconds: 5 } }
          }),
          400,
          { paths: ["external.pollIntervalSeconds"] }
        )
        expectProblem(await host.request("POST", `${groups}/pg_unknown/phases`, { body: { name: "X", sourceType: "internal" } }), 404)
        expect((await details(group.id)).phases).toHaveLength(2)

        // PATCH: rename and move; an unknown phase is a 404
        const moved = expectJson(await host.request("PATCH", `${phases}/${first.id}`, { body: { name: "Primary", position: 0 } }), 200)
        expect(moved).toEqual({ ...first, name: "Primary", position: 0 })
        expect((await details(group.id)).phases.map((p: any) => p.name)).toEqual(["Primary", "File"])
        expectProblem(await host.request("PATCH", `${phases}/${first.id}`, { body: { name: "File" } }), 409)
        expectProblem(await host.request("PATCH", `${phases}/ph_unknown`, { body: { name: "Z" } }), 404)
        const audit = await auditRows(host)
        expect(audit.filter((r) => r.action === "phase.create").map((r) => r.resourceId)).toEqual(
          expect.arrayContaining([first.id, external.id])
        )
        expect(audit.find((r) => r.action === "phase.update" && r.resourceId === first.id)).toBeDefined()
        // a PATCH to the current values changes, writes and emits nothing
        const eventsBefore = await events()
        expectJson(await host.request("PATCH", `${phases}/${first.id}`, { body: { name: "Primary", position: 0 } }), 200)
        expectJson(await host.request("PATCH", `${groups}/${group.id}`, { body: { name: "Phased", notification: "inherit" } }), 200)
        expect((await auditRows(host)).length).toBe(audit.length)
        expect(await events()).toEqual(eventsBefore)
      })

      it("internal -> external drops the phase's drafts; the file replaces its published mappings at the next sync", async () => {
        const group = await createGroup({ name: "Going external" })
        const phase = await createPhase(group.id, { name: "Main", sourceType: "internal" })
        await postMapping(group.id, phase.id, "nginx:1", "nginx:1.27.1")
        await publish(group.id)
        await postMapping(group.id, phase.id, "redis:7", "redis:7.2.4")
        const path = "going-external.json"
        fixture.files.setFile(
          { orgId: "org_acme", vcsConnectionId: host.org.vcsConnections["acme"]!, fullName: "acme/policy", branch: "main", path },
          JSON.stringify({ mappings: [{ fromImage: "alpine:3", toImage: "alpine:3.20" }] })
        )
        const changed = expectJson(
          await host.request("PATCH", `${groups}/${group.id}/phases/${phase.id}`, {
            body: {
              sourceType: "external",
              external: { vcsConnectionId: host.org.vcsConnections["acme"], repositoryFullName: "acme/policy", branch: "main", path }
            }
          }),
          200
        )
        expect(changed.sourceType).toBe("external")
        expect(await drafts(group.id, phase.id)).toEqual([])
        // published policy is unchanged until the file is read
        expect((await details(group.id)).publishedMappings.map((m: any) => m.fromImage)).toEqual(["nginx:1"])
        // the API no longer edits the phase
        expectProblem(
          await host.request("POST", `${groups}/${group.id}/phases/${phase.id}/mappings`, { body: { fromImage: "a:1", toImage: "a:2" } }),
          409
        )
        const synced = expectJson(await host.request("POST", `${groups}/${group.id}/phases/${phase.id}/sync`), 200)
        expect(synced).toMatchObject({ changed: true, created: 1, removed: 1 })
        expect((await details(group.id)).publishedMappings.map((m: any) => m.fromImage)).toEqual(["alpine:3"])
      })

      it("external -> internal keeps the published mappings as the phase's drafts: publishing keeps them", async () => {
        const group = host.org.policyGroups["Base images"]!
        const fromRepo = group.phases["From repo"]!
        fixture.files.setFile(
          {
            orgId: "org_acme",
            vcsConnectionId: host.org.vcsConnections["acme"]!,
            fullName: "acme/policy",
            branch: "main",
            path: "service-mappings.json"
          },
          JSON.stringify({
            mappings: [{ fromImage: "node:*", toImage: "node:20.11.1", order: 3 }, { fromImage: "busybox:1", toImage: "busybox:1.36.1" }]
          })
        )
        expectJson(await host.request("POST", `${groups}/${group.id}/phases/${fromRepo}/sync`), 200)
        const live = (await details(group.id)).publishedMappings.filter((m: any) => m.phaseId === fromRepo)
        expect(live).toHaveLength(2)
        const changed = expectJson(
          await host.request("PATCH", `${groups}/${group.id}/phases/${fromRepo}`, { body: { sourceType: "internal" } }),
          200
        )
        expect(changed).toEqual({ id: fromRepo, name: "From repo", sourceType: "internal", position: 1 })
        const copied = await drafts(group.id, fromRepo)
        expect(copied.map((d: any) => d.id).sort()).toEqual(live.map((m: any) => m.id).sort())
        const view = await draft(group.id)
        expect(view.removed.filter((m: any) => m.phaseId === fromRepo)).toEqual([])
        const published = await publish(group.id)
        expect(published.changes).toEqual({ created: 0, updated: 0, removed: 0 })
        const byId = (a: any, b: any) => (a.id < b.id ? -1 : 1)
        // the same mappings, untouched (ids, activation times); their order follows the drafts'
        expect(published.publishedMappings.filter((m: any) => m.phaseId === fromRepo).sort(byId)).toEqual([...live].sort(byId))
        // the sync route now refuses the phase: there is no file any more
        expectProblem(await host.request("POST", `${groups}/${group.id}/phases/${fromRepo}/sync`), 409, {
          type: "/problems/phase-not-external"
        })
      })

      it("deletes a phase (204) with its drafts; its published mappings stop applying at once and are announced", async () => {
        const group = await createGroup({ name: "Two phases" })
        const keep = await createPhase(group.id, { name: "Keep", sourceType: "internal" })
        const drop = await createPhase(group.id, { name: "Drop", sourceType: "internal" })
        await postMapping(group.id, keep.id, "nginx:1", "nginx:1.27.1")
        await postMapping(group.id, drop.id, "redis:7", "redis:7.2.4")
        await postMapping(group.id, drop.id, "node:20", "node:20.11.1")
        await publish(group.id)
        const before = await events()
        expect((await host.request("DELETE", `${groups}/${group.id}/phases/${drop.id}`)).status).toBe(204)
        const after = await details(group.id)
        expect(after.phases).toEqual([{ id: keep.id, name: "Keep", sourceType: "internal" }])
        expect(after.publishedMappings.map((m: any) => m.fromImage)).toEqual(["nginx:1"])
        const emitted = (await events()).slice(before.length)
        expect(count(emitted, "service.policy_mapping.removed")).toBe(2)
        expect(count(emitted, "service.policy_group.updated")).toBe(1)
        expectProblem(await host.request("DELETE", `${groups}/${group.id}/phases/${drop.id}`), 404)
        expect(await draft(group.id)).toMatchObject({ added: [], changed: [], removed: [], unchanged: 1 })
        expectProblem(await host.request("DELETE", `${groups}/${group.id}/phases/${keep.id}`, { key: secrets.draftsOnly }), 403)
      })
    })

    describe("draft mappings", () => {
      it("shows the draft against published policy, removes a draft (204), and publish counts and announces the removal", async () => {
        const group = await createGroup({ name: "Drafted" })
        const phase = await createPhase(group.id, { name: "Main", sourceType: "internal" })
        const nginx = await postMapping(group.id, phase.id, "nginx:1", "nginx:1.27.1")
        const redis = await postMapping(group.id, phase.id, "redis:7", "redis:7.2.4")
        const first = await draft(group.id)
        expect(first).toMatchObject({ policyGroupId: group.id, changed: [], removed: [], unchanged: 0 })
        expect(first.added.map((m: any) => m.id)).toEqual([nginx.id, redis.id])
        await publish(group.id)
        expect(await draft(group.id)).toEqual({ policyGroupId: group.id, added: [], changed: [], removed: [], unchanged: 2 })

        // change one, remove the other, add a third
        expectJson(
          await host.request("POST", `${groups}/${group.id}/phases/${phase.id}/mappings`, {
            body: { fromImage: "nginx:1", toImage: "nginx:1.27.2" }
          }),
          200
        )
        const removal = await host.request("DELETE", `${groups}/${group.id}/phases/${phase.id}/mappings/${redis.id}`, {
          key: secrets.draftsOnly
        })
        expect(removal).toMatchObject({ status: 204, text: "" })
        const alpine = await postMapping(group.id, phase.id, "alpine:3", "alpine:3.20")
        const view = await draft(group.id)
        expect(view.added.map((m: any) => m.id)).toEqual([alpine.id])
        expect(view.changed).toHaveLength(1)
        expect(view.changed[0].before).toMatchObject({ id: nginx.id, toImage: "nginx:1.27.1", activeFrom: expect.any(String) })
        expect(view.changed[0].after).toMatchObject({ id: nginx.id, toImage: "nginx:1.27.2", phaseId: phase.id })
        expect(view.removed.map((m: any) => m.id)).toEqual([redis.id])
        expect(view.unchanged).toBe(0)
        // published policy is untouched until publish
        expect((await details(group.id)).publishedMappings.map((m: any) => m.id).sort()).toEqual([nginx.id, redis.id].sort())

        const before = await events()
        const published = await publish(group.id)
        expect(published.changes).toEqual({ created: 1, updated: 1, removed: 1 })
        const emitted = (await events()).slice(before.length)
        expect(count(emitted, "service.policy_mapping.removed")).toBe(1)
        expect(count(emitted, "service.policy_mapping.created")).toBe(1)
        expect(count(emitted, "service.policy_mapping.updated")).toBe(1)
        expect(await draft(group.id)).toMatchObject({ added: [], changed: [], removed: [], unchanged: 2 })
        expect((await auditRows(host)).find((r) => r.action === "mapping.removed" && r.resourceId === redis.id)).toMatchObject({
          resourceType: "policy_mapping",
          outcome: "success"
        })
      })

      it("answers 404 for an unknown mapping, 409 for a mapping of an external phase, 403 without mappings:write", async () => {
        const group = host.org.policyGroups["Security"]!
        const pinned = group.phases["Pinned"]!
        const mapping = await postMapping(group.id, pinned, "postgres:16", "postgres:16.3")
        const path = (phaseId: string, id: string) => `${groups}/${group.id}/phases/${phaseId}/mappings/${id}`
        expectProblem(await host.request("DELETE", path(pinned, "map_unknown")), 404, { type: "/problems/mapping-not-found" })
        expectProblem(await host.request("DELETE", path(pinned, mapping.id), { key: secrets.readOnly }), 403)
        expectProblem(await host.request("DELETE", path("ph_unknown", mapping.id)), 404, { type: "/problems/phase-not-found" })
        expect((await drafts(group.id, pinned)).map((d: any) => d.id)).toContain(mapping.id)
        expect((await host.request("DELETE", path(pinned, mapping.id))).status).toBe(204)
        expectProblem(await host.request("DELETE", path(pinned, mapping.id)), 404)

        // an external phase: its file's mappings are refused (409), an unknown id is a 404
        const base = await createGroup({ name: "With a file" })
        const path2 = "with-a-file.json"
        fixture.files.setFile(
          { orgId: "org_acme", vcsConnectionId: host.org.vcsConnections["acme"]!, fullName: "acme/policy", branch: "main", path: path2 },
          JSON.stringify({ mappings: [{ fromImage: "alpine:3", toImage: "alpine:3.20" }] })
        )
        const external = await createPhase(base.id, {
          name: "File",
          sourceType: "external",
          external: { vcsConnectionId: host.org.vcsConnections["acme"], repositoryFullName: "acme/policy", branch: "main", path: path2 }
        })
        expectJson(await host.request("POST", `${groups}/${base.id}/phases/${external.id}/sync`), 200)
        const live = (await details(base.id)).publishedMappings[0]
        expectProblem(await host.request("DELETE", `${groups}/${base.id}/phases/${external.id}/mappings/${live.id}`), 409, {
          type: "/problems/external-phase-read-only"
        })
        expectProblem(await host.request("DELETE", `${groups}/${base.id}/phases/${external.id}/mappings/map_unknown`), 404)
      })
    })
  }), { pglite: true })

// the routes are in the contract, each with its summary and permissions
describe("policy administration in OpenAPI", () => {
  let host: TestHost
  beforeAll(async () => {
    host = await startTestHost()
  })
  afterAll(() => host?.stop())

  it("documents every route with a summary and its x-required-permissions", async () => {
    const doc = (await host.request("GET", "/api/v1/openapi.json", { key: null })).body
    const op = (path: string, method: string) => doc.paths[`/api/v1/org/{orgId}${path}`]?.[method]
    const expected: Array<[string, string, string]> = [
      ["/policy-groups", "post", "policy:publish"],
      ["/policy-groups/{groupId}", "get", "policy:read"],
      ["/policy-groups/{groupId}", "patch", "policy:publish"],
      ["/policy-groups/{groupId}", "delete", "policy:publish"],
      ["/policy-groups/{groupId}/phases", "post", "policy:publish"],
      ["/policy-groups/{groupId}/phases/{phaseId}", "patch", "policy:publish"],
      ["/policy-groups/{groupId}/phases/{phaseId}", "delete", "policy:publish"],
      ["/policy-groups/{groupId}/phases/{phaseId}/mappings/{mappingId}", "delete", "mappings:write"],
      ["/policy-groups/{groupId}/draft", "get", "policy:read"]
    ]
    for (const [path, method, permission] of expected) {
      const operation = op(path, method)
      expect(operation, `${method} ${path}`).toBeDefined()
      expect(operation.summary.length).toBeGreaterThan(0)
      expect(operation["x-required-permissions"]).toEqual([permission])
    }
  })
})
