/**
 * Broken object level authorization, over every organization route of the served OpenAPI document
 * (spec 5.3, 7 "404 ... so nothing cross-organization is disclosed"; contracts 4): org_globex's owner
 * key is pointed at org_acme's organization and at org_acme's resources from its own organization.
 * It must get 404 problems that carry nothing of org_acme and are indistinguishable from those for
 * ids that do not exist, and org_acme must be unchanged. Also the edition gate on every route.
 * Runs on the memory store and PostgreSQL.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { ORG_PREFIX, type Route, routesOf, sampleFor, unknownId } from "./support/bola.js"
import { secrets, type TestHost } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, type MakeStore, onEveryStore, useHost } from "./support/suites.js"

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`cross-organization access (${storeName})`, () => {
    const host = useHost(makeStore)
    const acme = () => host().org
    const globex = () => host().ids[1]!

    /** org_acme's real id for each path parameter of the API. */
    const acmeIds: Record<string, string> = {}
    /** Everything that identifies org_acme or one of its resources; no answer to globex may contain one. */
    let acmeMarkers: Array<string> = []
    let routes: Array<Route> = []
    let acmeSuccessRowsBefore: Array<any> = []

    /** The concrete path of a route with `orgId` and each parameter filled in by `fill`. */
    const pathOf = (route: Route, orgId: string, fill: (param: string) => string) =>
      route.template.replace(/\{([^}]+)\}/g, (_, param: string) => encodeURIComponent(param === "orgId" ? orgId : fill(param)))

    const call = (route: Route, path: string, key: string | null) => {
      const sample = sampleFor(route, acmeIds, acme().routines["Platform/Weekly"])
      return host().request(route.method, `${path}${sample.query}`, { key, ...(sample.body !== undefined ? { body: sample.body } : {}) })
    }

    const acmeIdFor = (template: string, param: string) =>
      param === "id" && template.includes("/webhooks/")
        ? acmeIds["webhookId"] ?? unknownId("webhookId")
        : acmeIds[param] ?? unknownId(param)

    /** Nothing of org_acme: no id, no name, no repository or account name. */
    const expectNothingOfAcme = (text: string, context: string) => {
      expect(text.toLowerCase(), context).not.toContain("acme")
      for (const marker of acmeMarkers) expect(text, context).not.toContain(marker)
    }

    const withoutCorrelation = (body: any) => {
      const { correlationId: _correlationId, ...rest } = body
      return rest
    }

    beforeAll(async () => {
      const h: TestHost = host()
      const base = `/api/v1/org/${acme().id}`
      const repository = expectJson(
        await h.request("POST", `${base}/repositories`, {
          body: {
            vcsConnectionId: acme().vcsConnections["acme"],
            externalRepoId: "1001",
            assignedTeamId: acme().teams["Platform"],
            assignedRoutineId: acme().routines["Platform/Weekly"],
            branchNames: ["main", "release"]
          }
        }),
        201
      )
      const apiKey = expectJson(
        await h.request("POST", `${base}/api-keys`, { body: { name: "bola-target", role: "Read Only", expiresInDays: 30 } }),
        201
      )
      const snooze = expectJson(
        await h.request("POST", `${base}/snooze-requests`, {
          body: { repositoryId: repository.repository.id, fromImage: "node:20", reason: "bola target", until: "2999-01-01T00:00:00Z" }
        }),
        201
      )
      const role = expectJson(
        await h.request("POST", `${base}/roles`, { body: { name: "bola role", permissions: ["policy:read"] } }),
        201
      )
      const member = expectJson(
        await h.request("POST", `${base}/members`, { body: { email: "bola.target@example.com", name: "bola target", role: role.id } }),
        201
      )
      const baseImages = acme().policyGroups["Base images"]!
      Object.assign(acmeIds, {
        memberId: member.id,
        roleId: role.id,
        teamId: acme().teams["Platform"]!,
        connectionId: acme().vcsConnections["acme"]!,
        repositoryId: repository.repository.id,
        groupId: baseImages.id,
        phaseId: baseImages.phases["Curated"]!,
        keyId: apiKey.id,
        snoozeRequestId: snooze.id,
        // organization administration (issue 15)
        routineId: acme().routines["Platform/Weekly"]!
      })
      // some state to protect: an assignment and a draft
      expectJson(
        await h.request("POST", `${base}/repositories/${repository.repository.id}/policy-groups`, {
          body: { assignments: [{ policyGroupId: baseImages.id, branchNames: ["main"] }] }
        }),
        200
      )
      expectJson(
        await h.request("POST", `${base}/policy-groups/${baseImages.id}/phases/${baseImages.phases["Curated"]}/mappings`, {
          body: { fromImage: "python:3.12", toImage: "python:3.12.1" }
        }),
        201
      )

      const document = expectJson(await h.request("GET", "/api/v1/openapi.json", { key: null }), 200)
      routes = routesOf(document)

      if (routes.some((r) => r.method === "POST" && r.template === `${ORG_PREFIX}/webhooks`)) {
        // when webhooks are served, hold a real destination of org_acme too (if this environment accepts the target)
        const created = await h.request("POST", `${base}/webhooks`, {
          body: {
            name: "bola",
            type: "generic",
            endpointUrl: "https://hooks.example.com/bola",
            scope: { kind: "organization" },
            events: ["service.snooze_request.created"]
          }
        })
        if (created.status === 201) acmeIds["webhookId"] = created.body.id
      }

      const o = acme()
      acmeMarkers = [
        o.id,
        o.name,
        ...Object.keys(o.teams),
        ...Object.values(o.teams),
        ...Object.values(o.routines),
        "Loose",
        ...Object.values(o.vcsConnections),
        ...Object.keys(o.policyGroups),
        ...Object.values(o.policyGroups).flatMap((g) => [g.id, ...Object.keys(g.phases), ...Object.values(g.phases)]),
        ...Object.values(o.apiKeys),
        ...Object.values(acmeIds),
        "bola target",
        "bola role",
        "python:3.12.1"
      ]
      acmeSuccessRowsBefore = (await auditRows(h)).filter((r) => r.outcome === "success")
    })

    it("finds the organization routes in the OpenAPI document, each resource parameter backed by a real org_acme id", () => {
      const templates = new Set(routes.map((r) => `${r.method} ${r.template.slice(ORG_PREFIX.length)}`))
      for (
        const expected of [
          "GET /teams",
          "GET /teams/{teamId}/routines",
          "GET /routines",
          "GET /vcs-connections",
          "GET /vcs-connections/{connectionId}/available-repos",
          "GET /vcs-connections/{connectionId}/available-branches",
          "GET /repositories",
          "POST /repositories",
          "GET /repositories/{repositoryId}/policy-groups",
          "POST /repositories/{repositoryId}/policy-groups",
          "GET /repositories/{repositoryId}/resolve",
          "GET /repositories/{repositoryId}/findings",
          "GET /repositories/{repositoryId}/scans",
          "POST /repositories/{repositoryId}/scans",
          "GET /repositories/{repositoryId}/remediation-requests",
          "GET /policy-groups",
          "GET /policy-groups/{groupId}/details",
          "GET /policy-groups/{groupId}/phases/{phaseId}/mappings",
          "POST /policy-groups/{groupId}/phases/{phaseId}/mappings",
          "POST /policy-groups/{groupId}/publish",
          "POST /policy-groups/{groupId}/phases/{phaseId}/sync",
          "GET /api-keys",
          "POST /api-keys",
          "POST /api-keys/{keyId}/revoke",
          "GET /snooze-requests",
          "POST /snooze-requests",
          "POST /snooze-requests/{snoozeRequestId}/review",
          "POST /snooze-requests/{snoozeRequestId}/reopen",
          "GET /audit-events"
        ]
      ) expect(templates, expected).toContain(expected)
      for (const route of routes) {
        for (const param of route.params) {
          if (param === "orgId") continue
          // parameters of routes beyond the ones above (webhooks) may have no live object here
          if (
            ["teamId", "connectionId", "repositoryId", "groupId", "phaseId", "keyId", "snoozeRequestId", "memberId", "roleId"].includes(
              param
            )
          ) {
            expect(acmeIds[param], `${route.method} ${route.template}`).toMatch(/^[a-z]+_[0-9a-z]+$/)
          }
        }
      }
    })

    it("org_globex's key on org_acme's path: 404 on every route, carrying nothing of org_acme", async () => {
      for (const route of routes) {
        const path = pathOf(route, acme().id, (p) => acmeIdFor(route.template, p))
        const context = `${route.method} ${path}`
        const answer = await call(route, path, secrets.otherOrg)
        expectProblem(answer, 404)
        expect(answer.status, context).toBe(404)
        expectNothingOfAcme(answer.text, context)
      }
    })

    it("the 404 on org_acme's path cannot be told from one for an organization or resource that does not exist", async () => {
      for (const route of routes) {
        const real = await call(route, pathOf(route, acme().id, (p) => acmeIdFor(route.template, p)), secrets.otherOrg)
        const fakeIds = await call(route, pathOf(route, acme().id, unknownId), secrets.otherOrg)
        const fakeOrg = await call(route, pathOf(route, "org_nonexistent", (p) => acmeIdFor(route.template, p)), secrets.otherOrg)
        const context = `${route.method} ${route.template}`
        expect(withoutCorrelation(fakeIds.body), context).toStrictEqual(withoutCorrelation(real.body))
        expect(withoutCorrelation(fakeOrg.body), context).toStrictEqual(withoutCorrelation(real.body))
        expect(fakeOrg.status, context).toBe(real.status)
      }
    })

    it("org_globex's own path with org_acme's resource ids: 404 wherever the path names a resource, same as for unknown ids", async () => {
      const named = routes.filter((r) => r.params.length > 1)
      expect(named.length).toBeGreaterThanOrEqual(12)
      for (const route of named) {
        const path = pathOf(route, globex().id, (p) => acmeIdFor(route.template, p))
        const context = `${route.method} ${path}`
        const answer = await call(route, path, secrets.otherOrg)
        expect(answer.status, `${context} ${answer.text}`).not.toBe(200)
        expect(answer.status, `${context} ${answer.text}`).not.toBe(403)
        expect(answer.status, `${context} ${answer.text}`).toBeLessThan(500)
        expectProblem(answer, 404)
        expectNothingOfAcme(answer.text, context)
        const unknown = await call(route, pathOf(route, globex().id, unknownId), secrets.otherOrg)
        expect(withoutCorrelation(unknown.body), context).toStrictEqual(withoutCorrelation(answer.body))
      }
    })

    it("a group of org_globex with a phase of org_acme is a 404 too", async () => {
      const globexGroup = globex().policyGroups["Globex images"]!.id
      const acmePhase = acmeIds["phaseId"]!
      const base = `/api/v1/org/${globex().id}/policy-groups/${globexGroup}/phases/${acmePhase}`
      for (
        const [method, path, body] of [
          ["GET", `${base}/mappings`, undefined],
          ["POST", `${base}/mappings`, { fromImage: "node:20", toImage: "node:20.11.1" }],
          ["POST", `${base}/sync`, undefined]
        ] as const
      ) {
        const answer = await host().request(method, path, { key: secrets.otherOrg, ...(body !== undefined ? { body } : {}) })
        expectProblem(answer, 404)
        expectNothingOfAcme(answer.text, `${method} ${path}`)
      }
    })

    it("org_globex's own lists show nothing of org_acme", async () => {
      for (const route of routes.filter((r) => r.method === "GET" && r.params.length === 1)) {
        const path = pathOf(route, globex().id, unknownId)
        const answer = await call(route, path, secrets.otherOrg)
        // the audit export answers NDJSON (one row per line), every other list JSON
        if (path.endsWith("/audit-events/export")) {
          expect(answer.status, answer.text).toBe(200)
          expect(answer.headers.get("content-type") ?? "").toMatch(/^application\/x-ndjson/)
        } else expectJson(answer, 200)
        // the built-in roles are every organization's (and "Security Administrator" contains acme's group name "Security")
        const own = path.endsWith("/roles") ? JSON.stringify(answer.body.items.filter((r: any) => !r.builtIn)) : answer.text
        expectNothingOfAcme(own, `GET ${path}`)
      }
    })

    it("org_acme ids inside a body sent to org_globex are 400s naming the field, same as unknown ids", async () => {
      const base = `/api/v1/org/${globex().id}`
      const globexRepo = expectJson(
        await host().request("POST", `${base}/repositories`, {
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
      const onboard = (overrides: Record<string, unknown>) => ({
        vcsConnectionId: globex().vcsConnections["globex"],
        externalRepoId: "1001",
        assignedTeamId: globex().teams["Ops"],
        assignedRoutineId: globex().routines["Ops/Weekly"],
        branchNames: ["main"],
        ...overrides
      })
      const cases: ReadonlyArray<{
        readonly path: string
        readonly field: string
        readonly acmeId: string
        readonly unknown: string
        readonly body: (id: string) => unknown
      }> = [
        {
          path: `${base}/repositories`,
          field: "vcsConnectionId",
          acmeId: acmeIds["connectionId"]!,
          unknown: unknownId("connectionId"),
          body: (id) => onboard({ vcsConnectionId: id })
        },
        {
          path: `${base}/repositories`,
          field: "assignedTeamId",
          acmeId: acmeIds["teamId"]!,
          unknown: unknownId("teamId"),
          body: (id) => onboard({ externalRepoId: "2001", assignedTeamId: id })
        },
        {
          path: `${base}/repositories`,
          field: "assignedRoutineId",
          acmeId: acme().routines["Platform/Weekly"]!,
          unknown: "rtn_00000000000000000000000000",
          body: (id) => onboard({ externalRepoId: "2001", assignedRoutineId: id })
        },
        {
          path: `${base}/snooze-requests`,
          field: "repositoryId",
          acmeId: acmeIds["repositoryId"]!,
          unknown: unknownId("repositoryId"),
          body: (id) => ({ repositoryId: id, fromImage: "node:20", reason: "x", until: "2999-01-01T00:00:00Z" })
        },
        {
          path: `${base}/repositories/${globexRepo.repository.id}/policy-groups`,
          field: "assignments[0].policyGroupId",
          acmeId: acmeIds["groupId"]!,
          unknown: unknownId("groupId"),
          body: (id) => ({ assignments: [{ policyGroupId: id, branchNames: ["main"] }] })
        }
      ]
      for (const { acmeId, body, field, path, unknown } of cases) {
        const context = `POST ${path} ${field}`
        const withAcme = await host().request("POST", path, { key: secrets.otherOrg, body: body(acmeId) })
        const problem = expectProblem(withAcme, 400, { paths: [field] })
        // the id the caller sent may be echoed back; nothing else of org_acme may appear
        expectNothingOfAcme(withAcme.text.split(acmeId).join("<id>"), context)
        const withUnknown = await host().request("POST", path, { key: secrets.otherOrg, body: body(unknown) })
        const twin = expectProblem(withUnknown, 400, { paths: [field] })
        expect(JSON.stringify(withoutCorrelation(problem)).split(acmeId).join("<id>"), context).toBe(
          JSON.stringify(withoutCorrelation(twin)).split(unknown).join("<id>")
        )
      }
    })

    it("left org_acme unchanged: no new audit rows, the key still works, the snooze request still pending", async () => {
      const after = (await auditRows(host())).filter((r) => r.outcome === "success")
      expect(after).toStrictEqual(acmeSuccessRowsBefore)
      const base = `/api/v1/org/${acme().id}`
      const keys = expectJson(await host().request("GET", `${base}/api-keys`), 200)
      expect(keys.items.find((k: any) => k.id === acmeIds["keyId"])?.status).toBe("active")
      const snoozes = expectJson(await host().request("GET", `${base}/snooze-requests`), 200)
      expect(snoozes.items.find((s: any) => s.id === acmeIds["snoozeRequestId"])?.status).toBe("pending")
      const assignments = expectJson(await host().request("GET", `${base}/repositories/${acmeIds["repositoryId"]}/policy-groups`), 200)
      expect(assignments.items.filter((i: any) => i.source === "repository_assignment").map((i: any) => i.id)).toStrictEqual([
        acmeIds["groupId"]
      ])
      const details = expectJson(await host().request("GET", `${base}/policy-groups/${acmeIds["groupId"]}/details`), 200)
      expect(details.publishedMappings).toStrictEqual([])
    })

    it("without a key every organization route answers 401, even for another organization", async () => {
      for (const route of routes) {
        for (const orgId of [acme().id, globex().id]) {
          const path = pathOf(route, orgId, (p) => acmeIdFor(route.template, p))
          expectProblem(await call(route, path, null), 401)
        }
      }
    })

    it("the edition gate: org_free's key gets 403 on every route of its own organization, 404 on org_acme's", async () => {
      for (const route of routes) {
        const own = pathOf(route, "org_free", unknownId)
        const answer = await call(route, own, secrets.freeEdition)
        expectProblem(answer, 403, { type: "/problems/automation-api-not-included" })
        const foreign = await call(route, pathOf(route, acme().id, (p) => acmeIdFor(route.template, p)), secrets.freeEdition)
        expectProblem(foreign, 404)
        expectNothingOfAcme(foreign.text, `${route.method} ${route.template}`)
      }
    })

    it("an automation-api grant opens a free-edition organization: org_granted's key reads its own teams", async () => {
      expect(expectJson(await host().request("GET", "/api/v1/org/org_granted/teams", { key: secrets.grantOrg }), 200)).toStrictEqual({
        items: []
      })
      expectProblem(await host().request("GET", `/api/v1/org/${acme().id}/teams`, { key: secrets.grantOrg }), 404)
    })
  })

await onEveryStore("bola", suite)
