/** The audit trail of rejected writes: who tried what, with which problem; nothing changed. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host?.stop())

const audit = async () => (await host.request("GET", "/api/v1/org/org_acme/audit-events?limit=200")).body.items as Array<any>

describe("audit trail of rejected writes", () => {
  it("a write refused by a business rule leaves one rejected row naming the operation and the problem", async () => {
    const before = await audit()
    const org = host.org
    const answer = await host.request("POST", "/api/v1/org/org_acme/repositories", {
      key: secrets.automation,
      body: {
        vcsConnectionId: org.vcsConnections["acme"],
        externalRepoId: "1002",
        assignedTeamId: org.teams["Platform"],
        assignedRoutineId: org.routines["Payments/Daily"],
        branchNames: ["main"]
      }
    })
    expect(answer.status).toBe(400)
    const after = await audit()
    expect(after.length).toBe(before.length + 1)
    const row = after[0]
    expect(row).toMatchObject({
      action: "createRepository",
      resourceType: "repositories",
      resourceId: null,
      outcome: "rejected",
      detail: "/problems/routine-team-mismatch",
      actor: { kind: "apiKey" }
    })
    const keys = (await host.request("GET", "/api/v1/org/org_acme/api-keys")).body.items as Array<any>
    expect(row.actor.apiKeyId).toBe(keys.find((k) => k.name === "automation").id)
    expect((await host.request("GET", "/api/v1/org/org_acme/repositories")).body.items).toEqual([])
  })

  it("a refused edit of an existing resource names it; a 404 names nothing", async () => {
    const group = host.org.policyGroups["Base images"]!
    const external = `/api/v1/org/org_acme/policy-groups/${group.id}/phases/${group.phases["From repo"]}/mappings`
    expect((await host.request("POST", external, { body: { fromImage: "node:20", toImage: "node:20.1.0" } })).status).toBe(409)
    expect((await audit())[0]).toMatchObject({
      action: "upsertDraftMapping",
      resourceType: "phase",
      resourceId: group.phases["From repo"],
      outcome: "rejected",
      detail: "/problems/external-phase-read-only"
    })
    const unknown = "/api/v1/org/org_acme/policy-groups/pg_00000000000000000000000000/publish"
    expect((await host.request("POST", unknown)).status).toBe(404)
    expect((await audit())[0]).toMatchObject({
      action: "publishPolicyGroup",
      resourceId: null,
      outcome: "rejected",
      detail: "/problems/policy-group-not-found"
    })
  })

  it("reads are not audited and rows never hold a secret", async () => {
    const before = (await audit()).length
    await host.request("GET", "/api/v1/org/org_acme/policy-groups/pg_00000000000000000000000000/details")
    expect((await audit()).length).toBe(before)
    const text = (await host.request("GET", "/api/v1/org/org_acme/audit-events?limit=200")).text
    for (const secret of Object.values(secrets)) expect(text).not.toContain(secret)
  })
})
