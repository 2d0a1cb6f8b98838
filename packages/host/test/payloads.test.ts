/** Request bodies are strict: an unknown (e.g. misspelt) field is a 400 naming it, and nothing changes. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "./support/harness.js"
import { expectProblem } from "./support/suites.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host?.stop())

describe("strict request bodies", () => {
  it("a misspelt optional field of a mapping is refused by name, not ignored", async () => {
    const group = host.org.policyGroups["Base images"]!
    const path = `/api/v1/org/org_acme/policy-groups/${group.id}/phases/${group.phases["Curated"]}/mappings`
    const r = await host.request("POST", path, { body: { fromImage: "node:20", toImage: "node:20.11.1", platformscope: "linux/amd64" } })
    expectProblem(r, 400, { paths: ["platformscope"] })
    expect((await host.request("GET", path)).body.items).toEqual([])
  })

  it("every unknown field of an onboarding body is named at once", async () => {
    const org = host.org
    const r = await host.request("POST", "/api/v1/org/org_acme/repositories", {
      body: {
        vcsConnectionId: org.vcsConnections["acme"],
        externalRepoId: "1001",
        assignedTeamId: org.teams["Platform"],
        assignedRoutineId: org.routines["Platform/Weekly"],
        branchNames: ["main"],
        team: "Platform",
        branches: ["main"]
      }
    })
    expectProblem(r, 400, { paths: ["team", "branches"] })
    expect((await host.request("GET", "/api/v1/org/org_acme/repositories")).body.items).toEqual([])
  })
})
