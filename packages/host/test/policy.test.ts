/**
 * Policy groups over HTTP (spec 2, 3, 4 rules 7-9, 5.4; contracts 4, 5): the list, the details,
 * the draft list, the mapping upsert, publish and sync, on the memory store and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { expectProblem, memoryStore, postgresStore, type StoreFactory } from "./support/problem.js"

const suite = (name: string, makeStore: StoreFactory) =>
  describe(`policy over HTTP (${name})`, () => {
    let host: TestHost
    beforeAll(async () => {
      host = await startTestHost({ store: makeStore() })
    })
    afterAll(() => host?.stop())

    const base = () => host.org.policyGroups["Base images"]!
    const curated = () => base().phases["Curated"]!
    const fromRepo = () => base().phases["From repo"]!
    const security = () => host.org.policyGroups["Security"]!
    const pinned = () => security().phases["Pinned"]!
    const groupPath = (groupId: string) => `/api/v1/org/org_acme/policy-groups/${groupId}`
    const mappingsPath = (groupId: string, phaseId: string) => `${groupPath(groupId)}/phases/${phaseId}/mappings`
    const postMapping = (body: unknown, options: { key?: string; groupId?: string; phaseId?: string } = {}) =>
      host.request("POST", mappingsPath(options.groupId ?? base().id, options.phaseId ?? curated()), {
        body,
        ...(options.key !== undefined ? { key: options.key } : {})
      })
    const drafts = async (groupId = base().id, phaseId = curated()) => {
      const answer = await host.request("GET", `${mappingsPath(groupId, phaseId)}?limit=200`)
      expect(answer.status).toBe(200)
      return answer.body.items as Array<any>
    }
    const details = async (groupId = base().id) => {
      const answer = await host.request("GET", `${groupPath(groupId)}/details`)
      expect(answer.status).toBe(200)
      return answer.body
    }

    describe("reads", () => {
      it("lists the organization's policy groups with id, name and applyToAllRepos only", async () => {
        const answer = await host.request("GET", "/api/v1/org/org_acme/policy-groups", { key: secrets.readOnly })
        expect(answer.status).toBe(200)
        const byName = Object.fromEntries(answer.body.items.map((g: any) => [g.name, g]))
        expect(Object.keys(byName).sort()).toEqual(["Base images", "Everywhere", "Security"])
        expect(byName["Base images"]).toEqual({ id: base().id, name: "Base images", applyToAllRepos: false })
        expect(byName["Everywhere"]).toEqual({
          id: host.org.policyGroups["Everywhere"]!.id,
          name: "Everywhere",
          applyToAllRepos: true
        })
        // another organization's groups are not listed
        expect(answer.text).not.toContain("Globex images")
      })

      it("shows the details: phases with their source type, the external file of an external phase, the published mappings", async () => {
        const body = await details()
        expect(body.id).toBe(base().id)
        expect(body.name).toBe("Base images")
        expect(body.applyToAllRepos).toBe(false)
        expect(body.phases).toEqual([
          { id: curated(), name: "Curated", sourceType: "internal" },
          {
            id: fromRepo(),
            name: "From repo",
            sourceType: "external",
            external: {
              repositoryFullName: "acme/policy",
              branch: "main",
              path: "service-mappings.json",
              lastSyncedAt: null,
              lastError: null
            }
          }
        ])
        expect(Array.isArray(body.publishedMappings)).toBe(true)
        // internal settings of the external source (connection id, file version) are not shown
        expect(body.phases[1].external).not.toHaveProperty("vcsConnectionId")
        expect(body.phases[1].external).not.toHaveProperty("lastVersion")
      })

      it("answers 404 problems for an unknown group, an unknown phase and another organization's group", async () => {
        expectProblem(await host.request("GET", `${groupPath("pg_doesnotexist")}/details`), 404, {
          type: "/problems/policy-group-not-found"
        })
        expectProblem(await host.request("GET", `${mappingsPath(base().id, "ph_doesnotexist")}`), 404, {
          type: "/problems/phase-not-found"
        })
        // a phase of another group is not a phase of this group
        expectProblem(await host.request("GET", mappingsPath(base().id, pinned())), 404)
        const globex = host.ids[1]!.policyGroups["Globex images"]!.id
        expectProblem(await host.request("GET", `${groupPath(globex)}/details`), 404)
      })
    })

    describe("draft mappings (rules 7, 8)", () => {
      it("creates a draft with 201 and lists it in the phase's drafts, not in the published policy", async () => {
        const answer = await postMapping({ fromImage: "redis:7", toImage: "registry.acme.test/redis:7.2.4", reason: "curated redis" })
        expect(answer.status).toBe(201)
        expect(answer.body).toMatchObject({
          id: expect.any(String),
          fromImage: "redis:7",
          toImage: "registry.acme.test/redis:7.2.4",
          reason: "curated redis",
          phaseId: curated(),
          createdAt: expect.any(String),
          updatedAt: expect.any(String)
        })
        const listed = (await drafts()).filter((d) => d.id === answer.body.id)
        expect(listed).toEqual([answer.body])
        const published = (await details()).publishedMappings
        expect(published.some((m: any) => m.id === answer.body.id)).toBe(false)
      })

      it("posting the same key again answers 200 and updates the one draft; an identical repeat changes nothing", async () => {
        const first = await postMapping({ fromImage: "postgres:16", toImage: "registry.acme.test/postgres:16.1" })
        expect(first.status).toBe(201)
        const second = await postMapping({ fromImage: "postgres:16", toImage: "registry.acme.test/postgres:16.2", reason: "patch" })
        expect(second.status).toBe(200)
        expect(second.body.id).toBe(first.body.id)
        expect(second.body.toImage).toBe("registry.acme.test/postgres:16.2")
        expect(second.body.createdAt).toBe(first.body.createdAt)
        const third = await postMapping({ fromImage: "postgres:16", toImage: "registry.acme.test/postgres:16.2", reason: "patch" })
        expect(third.status).toBe(200)
        expect(third.body).toEqual(second.body)
        const same = (await drafts()).filter((d) => d.fromImage === "postgres:16")
        expect(same).toEqual([second.body])
      })

      it("`node` and `docker.io/library/node` are one key; another platform scope is another draft", async () => {
        const short = await postMapping({ fromImage: "node:20", toImage: "registry.acme.test/node:20.11.0" })
        expect(short.status).toBe(201)
        const long = await postMapping({ fromImage: "docker.io/library/node:20", toImage: "registry.acme.test/node:20.11.1" })
        expect(long.status).toBe(200)
        expect(long.body.id).toBe(short.body.id)
        const scoped = await postMapping({
          fromImage: "node:20",
          toImage: "registry.acme.test/node:20.11.1-arm",
          platformScope: "linux/arm64"
        })
        expect(scoped.status).toBe(201)
        expect(scoped.body.id).not.toBe(short.body.id)
        // the canonical scope forms are one key too (linux/aarch64 == linux/arm64)
        const alias = await postMapping({
          fromImage: "docker.io/library/node:20",
          toImage: "registry.acme.test/node:20.11.2-arm",
          platformScope: "linux/aarch64"
        })
        expect(alias.status).toBe(200)
        expect(alias.body.id).toBe(scoped.body.id)
        const nodes = (await drafts()).filter((d) => d.id === short.body.id || d.id === scoped.body.id)
        expect(nodes).toHaveLength(2)
        const all = await drafts()
        expect(new Set(all.map((d) => d.id)).size).toBe(all.length)
      })

      it("toImage must be exact: a bare name or a wildcard is a 400 naming toImage, and nothing is drafted", async () => {
        const before = await drafts()
        for (
          const toImage of ["registry.acme.test/nginx", "nginx", "registry.acme.test/nginx:*", "registry.acme.test/*:1.25", "NOT A REF"]
        ) {
          const answer = await postMapping({ fromImage: "nginx:1.25", toImage })
          expectProblem(answer, 400, { paths: ["toImage"] })
        }
        // an invalid fromImage is named too
        expectProblem(await postMapping({ fromImage: "UPPER/Case::", toImage: "nginx:1.25.3" }), 400, { paths: ["fromImage"] })
        expect(await drafts()).toEqual(before)
      })

      it("file-only fields are refused with a 400 naming each of them", async () => {
        const answer = await postMapping({
          fromImage: "busybox:1",
          toImage: "registry.acme.test/busybox:1.36",
          order: 1,
          bypassCooldown: true,
          mappingContext: "ctx",
          applicableDateTime: "2030-01-01T00:00:00Z"
        })
        expectProblem(answer, 400, { paths: ["order", "bypassCooldown", "mappingContext", "applicableDateTime"] })
        expectProblem(await postMapping({ fromImage: "busybox:1", toImage: "registry.acme.test/busybox:1.36", order: 3 }), 400, {
          paths: ["order"]
        })
        expect((await drafts()).some((d) => d.fromImage === "busybox:1")).toBe(false)
      })

      it("schema violations are 400 problems naming the field", async () => {
        expectProblem(await postMapping({ toImage: "nginx:1.25.3" }), 400, { paths: ["fromImage"] })
        expectProblem(await postMapping({ fromImage: "nginx:1", toImage: 42 }), 400, { paths: ["toImage"] })
        expectProblem(await postMapping({ fromImage: "nginx:1", toImage: "nginx:1.25.3", platformScope: "plan10/amd64" }), 400, {
          paths: ["platformScope"]
        })
        expectProblem(await postMapping([]), 400)
      })

      it("an external phase refuses mappings with 409 and keeps its state (rule 7)", async () => {
        const before = await details()
        const answer = await postMapping({ fromImage: "alpine:3", toImage: "registry.acme.test/alpine:3.19.1" }, { phaseId: fromRepo() })
        expectProblem(answer, 409, { type: "/problems/external-phase-read-only" })
        expect(await drafts(base().id, fromRepo())).toEqual([])
        expect(await details()).toEqual(before)
      })

      it("unknown group or phase in the path answers 404", async () => {
        const body = { fromImage: "alpine:3", toImage: "registry.acme.test/alpine:3.19.1" }
        expectProblem(await postMapping(body, { groupId: "pg_unknown" }), 404, { type: "/problems/policy-group-not-found" })
        expectProblem(await postMapping(body, { phaseId: "ph_unknown" }), 404, { type: "/problems/phase-not-found" })
        expectProblem(await postMapping(body, { phaseId: pinned() }), 404, { type: "/problems/phase-not-found" })
      })

      it("a read-only key gets 403 on mappings; a drafts-only key may draft but not publish (spec 5.4)", async () => {
        const body = { fromImage: "memcached:1", toImage: "registry.acme.test/memcached:1.6.23" }
        expectProblem(await postMapping(body, { key: secrets.readOnly }), 403, { type: "/problems/permission-denied" })
        expect((await drafts()).some((d) => d.fromImage === "memcached:1")).toBe(false)
        const drafted = await postMapping(body, { key: secrets.draftsOnly })
        expect(drafted.status).toBe(201)
        const before = await details()
        expectProblem(await host.request("POST", `${groupPath(base().id)}/publish`, { key: secrets.draftsOnly }), 403, {
          type: "/problems/permission-denied"
        })
        expect(await details()).toEqual(before)
      })
      it("text no store can hold (NUL, unpaired surrogates) is a 400 naming the field, or a 404 in the path; never a 500", async () => {
        const before = await drafts()
        expectProblem(await postMapping({ fromImage: "nginx:1", toImage: "nginx:1.25.3", reason: "a\u0000b" }), 400, { paths: ["reason"] })
        expectProblem(await postMapping({ fromImage: "nginx:1", toImage: "nginx:1.25.3", reason: "\ud800" }), 400, { paths: ["reason"] })
        expectProblem(await postMapping({ fromImage: "nginx:1\u0000", toImage: "nginx:1.25.3" }), 400, { paths: ["fromImage"] })
        expect(await drafts()).toEqual(before)
        // paired surrogates are ordinary text
        const emoji = await postMapping({
          fromImage: "emoji/image:1",
          toImage: "registry.acme.test/emoji/image:1.0.0",
          reason: "ok \ud83d\ude00"
        })
        expect(emoji.status).toBe(201)
        expect(emoji.body.reason).toBe("ok \ud83d\ude00")
        expectProblem(await host.request("GET", `${groupPath("%00")}/details`), 404)
        expectProblem(await host.request("GET", `${groupPath("pg_%00")}/details`), 404)
        expectProblem(await host.request("POST", `${groupPath("%00")}/publish`), 404)
        expectProblem(await host.request("GET", mappingsPath(base().id, "%00")), 404)
        expectProblem(await host.request("GET", "/api/v1/org/org_acme/repositories?repositoryId=%00"), 400, { paths: ["repositoryId"] })
      })
    })

    describe("publish (rule 9)", () => {
      it("publishes the whole draft of the group, unrelated drafts included, and answers the new published policy", async () => {
        const mine = await postMapping({ fromImage: "python:3.12", toImage: "registry.acme.test/python:3.12.2" })
        expect(mine.status).toBe(201)
        const draftIds = (await drafts()).map((d) => d.id)
        // draft in the group by another client (drafts-only key) before the publish
        const unrelated = await postMapping({ fromImage: "golang:1.22", toImage: "registry.acme.test/golang:1.22.1" }, {
          key: secrets.draftsOnly
        })
        expect(unrelated.status).toBe(201)

        const answer = await host.request("POST", `${groupPath(base().id)}/publish`, { key: secrets.automation })
        expect(answer.status).toBe(200)
        expect(answer.body.id).toBe(base().id)
        expect(answer.body.changes).toEqual({ created: draftIds.length + 1, updated: 0, removed: 0 })
        const publishedIds = answer.body.publishedMappings.map((m: any) => m.id).sort()
        expect(publishedIds).toEqual([...draftIds, unrelated.body.id].sort())
        for (const m of answer.body.publishedMappings) {
          expect(m).toMatchObject({
            phaseId: curated(),
            activeFrom: expect.any(String),
            fromImage: expect.any(String),
            toImage: expect.any(String)
          })
        }
        const python = answer.body.publishedMappings.find((m: any) => m.id === mine.body.id)
        expect(python).toMatchObject({ fromImage: "python:3.12", toImage: "registry.acme.test/python:3.12.2" })

        const after = await details()
        expect(after.publishedMappings).toEqual(answer.body.publishedMappings)
      })

      it("a draft change after publishing stays a draft until the next publish, which reports it as updated", async () => {
        const changed = await postMapping({ fromImage: "python:3.12", toImage: "registry.acme.test/python:3.12.3" })
        expect(changed.status).toBe(200)
        const live = (await details()).publishedMappings.find((m: any) => m.fromImage === "python:3.12")
        expect(live.toImage).toBe("registry.acme.test/python:3.12.2")

        const answer = await host.request("POST", `${groupPath(base().id)}/publish`)
        expect(answer.status).toBe(200)
        expect(answer.body.changes).toEqual({ created: 0, updated: 1, removed: 0 })
        const now = (await details()).publishedMappings.find((m: any) => m.fromImage === "python:3.12")
        expect(now.toImage).toBe("registry.acme.test/python:3.12.3")

        // publishing an unchanged draft again changes nothing
        const again = await host.request("POST", `${groupPath(base().id)}/publish`)
        expect(again.status).toBe(200)
        expect(again.body.changes).toEqual({ created: 0, updated: 0, removed: 0 })
        expect(again.body.publishedMappings).toEqual(answer.body.publishedMappings)
      })

      it("publishing one group leaves another group's drafts unpublished", async () => {
        const other = await postMapping({ fromImage: "ruby:3.3", toImage: "registry.acme.test/ruby:3.3.0" }, {
          groupId: security().id,
          phaseId: pinned()
        })
        expect(other.status).toBe(201)
        const answer = await host.request("POST", `${groupPath(base().id)}/publish`)
        expect(answer.status).toBe(200)
        expect(answer.body.publishedMappings.some((m: any) => m.fromImage === "ruby:3.3")).toBe(false)
        expect((await details(security().id)).publishedMappings).toEqual([])
        expect((await drafts(security().id, pinned())).map((d) => d.id)).toEqual([other.body.id])

        const own = await host.request("POST", `${groupPath(security().id)}/publish`)
        expect(own.status).toBe(200)
        expect(own.body.publishedMappings.map((m: any) => m.id)).toEqual([other.body.id])
        expect((await details(security().id)).publishedMappings.map((m: any) => m.id)).toEqual([other.body.id])
      })

      it("unknown or foreign group answers 404; the publish route takes no permission from mappings:write", async () => {
        expectProblem(await host.request("POST", `${groupPath("pg_unknown")}/publish`), 404, { type: "/problems/policy-group-not-found" })
        const globex = host.ids[1]!.policyGroups["Globex images"]!.id
        expectProblem(await host.request("POST", `${groupPath(globex)}/publish`), 404)
        expectProblem(await host.request("POST", `${groupPath(base().id)}/publish`, { key: secrets.readOnly }), 403)
      })
    })

    describe("sync", () => {
      // the whole sync (files added, changed, invalid, pushes) is in sync.test.ts
      it("an external phase whose file is missing keeps its published mappings and says why", async () => {
        const before = await details()
        const answer = await host.request("POST", `${groupPath(base().id)}/phases/${fromRepo()}/sync`)
        expect(answer.status).toBe(200)
        expect(answer.body).toMatchObject({ phaseId: fromRepo(), version: null, changed: false, created: 0, updated: 0, removed: 0 })
        expect(answer.body.error).toMatch(/service-mappings\.json was not found/)
        const after = await details()
        expect(after.publishedMappings).toEqual(before.publishedMappings)
        expect(after.phases[1].external.lastError).toBe(answer.body.error)
      })

      it("an internal phase answers 409 (there is no file to follow); unknown phase 404; drafts-only key 403", async () => {
        expectProblem(await host.request("POST", `${groupPath(base().id)}/phases/${curated()}/sync`), 409, {
          type: "/problems/phase-not-external"
        })
        expectProblem(await host.request("POST", `${groupPath(base().id)}/phases/ph_unknown/sync`), 404)
        expectProblem(await host.request("POST", `${groupPath(base().id)}/phases/${fromRepo()}/sync`, { key: secrets.draftsOnly }), 403)
      })
    })
  })

suite("memory", memoryStore)

await pgDescribe("http-policy", (url) => {
  suite("postgres", postgresStore(url))
})
