/** The poll worker syncs external phases over HTTP (its per-phase intervals are tested with a TestClock in syncWorker.test.ts). */
import { FixtureVcs } from "@image-policy/adapters"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "./support/harness.js"
import { auditRows, expectJson } from "./support/suites.js"
import { api, file, syncSeed } from "./support/sync.js"
import { until } from "./support/until.js"

describe("the poll worker", () => {
  let host: TestHost
  let fixture: ReturnType<typeof FixtureVcs.make>
  const first = file({ fromImage: "node:20", toImage: "node:20.11.1" })
  beforeAll(async () => {
    fixture = FixtureVcs.make()
    const seed = syncSeed()
    const acme = seed.organizations[0]
    acme.vcsConnections[0].fixture.repositories.find((r: any) => r.fullName === "acme/policy").files = {
      main: { "service-mappings.json": first }
    }
    // polled once an hour: only the start (never synced) makes it due within this test
    acme.policyGroups[0].phases[1].file.pollIntervalSeconds = 3600
    host = await startTestHost({ seed, vcs: { fixture: fixture.provider }, syncWorker: { tickMs: 50 } })
  })
  afterAll(() => host?.stop())

  it("syncs every external phase that was never synced at once, then waits for each phase's interval", async () => {
    const g = host.org.policyGroups["Base images"]!
    const delayed = host.org.policyGroups["Delayed"]!
    const at = {
      orgId: "org_acme",
      vcsConnectionId: host.org.vcsConnections["acme"]!,
      fullName: "acme/policy",
      branch: "main",
      path: "service-mappings.json"
    }
    const details = async (id: string) => expectJson(await host.request("GET", `${api}/policy-groups/${id}/details`), 200)
    const published = async () => (await details(g.id)).publishedMappings.map((m: any) => m.toImage) as Array<string>
    await until("the seeded file version", async () => (await published()).includes("node:20.11.1"))
    // a phase without its file records that on its first poll
    await until("lastError on the phase without a file", async () => (await details(delayed.id)).phases[0].external.lastError !== null)
    const rows = (await auditRows(host)).filter((r) => r.action === "policy_group.sync")
    expect(rows).toHaveLength(1)
    expect(rows[0].actor).toEqual({ kind: "system", name: "sync-worker" })

    // a new version is not read before the phase's interval (an hour), however often the worker ticks
    fixture.files.setFile(at, file({ fromImage: "node:20", toImage: "node:20.12.0" }))
    await new Promise((r) => setTimeout(r, 600))
    expect(await published()).toEqual(["node:20.11.1"])
    // a sync on demand reads it at once
    expect(expectJson(await host.request("POST", `${api}/policy-groups/${g.id}/phases/${g.phases["From repo"]}/sync`), 200)).toMatchObject({
      changed: true,
      updated: 1
    })
    expect(await published()).toEqual(["node:20.12.0"])
  })
})
