/**
 * The scan worker's guarantees, seen through the API (issue 7: "bounded worker pool, safe on
 * several hosts, resumable after a crash"): no more scans run at once than its concurrency, a scan
 * that dies unexpectedly leaves the others running and is run again once its lease expires, a scan
 * that never gets through is given up after `maxScanAttempts` claims (`failed` / `abandoned`), and
 * on PostgreSQL the scans a stopped host held are resumed by another host on the same database
 * (the same scans, not new ones), while two hosts never run one scan twice.
 */
import { FixtureVcs } from "@image-policy/adapters"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { startTestHost, type TestHost } from "./support/harness.js"
import { postgresStore } from "./support/problem.js"
import { onboard, seedWithFiles, statuses, withListFiles } from "./support/scanHost.js"
import { expectJson, readAllPages } from "./support/suites.js"
import { until } from "./support/until.js"

const api = "/api/v1/org/org_acme"

describe("the scan worker (memory store)", () => {
  let host: TestHost
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  /**
   * acme/api's scans wait here until released; acme/web's die on their first run of each branch
   * (`"first"`), on every run (`"always"`) or never.
   */
  let webDies: "first" | "always" | "never" = "first"
  let webAttempts = 0
  const webRuns: Record<string, number> = {}
  let apiListings = 0

  beforeAll(async () => {
    const fixture = FixtureVcs.make()
    host = await startTestHost({
      seed: seedWithFiles(),
      vcs: {
        fixture: withListFiles(fixture.provider, (at) => {
          if (at.fullName === "acme/api") {
            return Effect.suspend(() => {
              apiListings++
              return Effect.promise(() => held)
            })
          }
          if (at.fullName === "acme/web") {
            return Effect.suspend(() => {
              webAttempts++
              const runs = webRuns[at.branch] = (webRuns[at.branch] ?? 0) + 1
              return webDies === "always" || (webDies === "first" && runs === 1)
                ? Effect.die(new Error("a bug in the provider adapter"))
                : Effect.void
            })
          }
          return undefined
        })
      },
      scanWorker: { concurrency: 2, pollIntervalMs: 20, leaseMs: 1_000, maxRunMs: 1_000 }
    })
  })
  afterAll(async () => {
    release()
    await host?.stop()
  })

  let apiId = ""
  let webId = ""

  it("runs no more scans at once than its concurrency; the others wait queued", async () => {
    apiId = await onboard(host, "1001", ["main", "release", "develop"])
    await until("two running scans", async () => {
      const now = await statuses(host, apiId)
      return Object.values(now).filter((s) => s === "running").length === 2 && now
    })
    // a while later, still two: the third waits for a free slot
    await new Promise((r) => setTimeout(r, 150))
    const now = Object.values(await statuses(host, apiId)).sort()
    expect(now).toEqual(["queued", "running", "running"])
  })

  it("a scan run that exceeds its longest run time is stopped and claimed again; the same scans finish once they can", async () => {
    const before = (await readAllPages(host, `${api}/repositories/${apiId}/scans`)).items.map((s: any) => s.id).sort()
    // each of the two held scans is listed again after its run was stopped (1 s) and its lease ran out
    await until("the held scans claimed again", async () => apiListings >= 4)
    release()
    await until("all three succeeded", async () => Object.values(await statuses(host, apiId)).every((s) => s === "succeeded"))
    const after = (await readAllPages(host, `${api}/repositories/${apiId}/scans`)).items
    // the same scans, re-run: none was queued twice
    expect(after.map((s: any) => s.id).sort()).toEqual(before)
    expect(after.every((s: any) => s.findingCount === 1)).toBe(true)
  })

  it("a scan that dies unexpectedly does not stop the others; it is run again when its lease expires", async () => {
    webId = await onboard(host, "1002", ["main", "develop"])
    const other = await onboard(host, "1003", ["main"])
    await until(
      "acme/policy scanned while acme/web's scans died",
      async () => (await statuses(host, other)).main === "succeeded" && webAttempts >= 2
    )
    expect(Object.values(await statuses(host, webId))).not.toContain("succeeded")
    await until(
      "acme/web succeeded on the retry after the lease",
      async () => Object.values(await statuses(host, webId)).every((s) => s === "succeeded")
    )
    const scans = (await readAllPages(host, `${api}/repositories/${webId}/scans`)).items
    // the same two scans, each claimed twice: the run that died and the one that succeeded
    expect(scans.map((s: any) => [s.branchName, s.status, s.attempts]).sort()).toEqual([
      ["develop", "succeeded", 2],
      ["main", "succeeded", 2]
    ])
  })

  it("a scan that dies on every run is given up after 3 claims: failed / abandoned, findings kept, others unaffected", async () => {
    const findingsBefore = expectJson(await host.request("GET", `${api}/repositories/${webId}/findings?branch=main`), 200)
    expect(findingsBefore.items).toHaveLength(1)
    webDies = "always"
    const runsBefore = webRuns["main"] ?? 0
    const queued = expectJson(await host.request("POST", `${api}/repositories/${webId}/scans`, { body: { branchNames: ["main"] } }), 202)
    const [scan] = queued.scans
    expect(scan).toMatchObject({ branchName: "main", status: "queued", attempts: 0 })
    // meanwhile another repository's scan runs as usual
    expectJson(await host.request("POST", `${api}/repositories/${apiId}/scans`, { body: { branchNames: ["main"] } }), 202)
    await until("acme/web main given up", async () => (await statuses(host, webId)).main === "failed")
    const [abandoned] = (await readAllPages(host, `${api}/repositories/${webId}/scans?branch=main`)).items
    expect(abandoned).toMatchObject({
      id: scan.id,
      status: "failed",
      failure: "abandoned",
      attempts: 3,
      commitSha: null,
      fileCount: 0,
      findingCount: 0,
      finishedAt: expect.any(String)
    })
    expect((webRuns["main"] ?? 0) - runsBefore).toBe(3)
    // the findings of the last scan that succeeded stay; the scan is not run again
    const findingsAfter = expectJson(await host.request("GET", `${api}/repositories/${webId}/findings?branch=main`), 200)
    expect(findingsAfter).toEqual(findingsBefore)
    await until("acme/api main scanned again", async () => (await statuses(host, apiId)).main === "succeeded")
    await new Promise((r) => setTimeout(r, 1_200))
    expect((webRuns["main"] ?? 0) - runsBefore).toBe(3)
  })
})

await pgDescribe("http-scan-worker", (url) => {
  describe("two hosts on one PostgreSQL database", () => {
    let first: TestHost | undefined
    let second: TestHost | undefined
    let repositoryId = ""
    let scanIds: Array<string> = []
    let secondHostListings = 0

    afterAll(async () => {
      await first?.stop()
      await second?.stop()
    })

    it("a host that stops mid-scan releases its scans; another host resumes the same scans at once", async () => {
      const stuck = FixtureVcs.make()
      first = await startTestHost({
        store: postgresStore(url)(),
        seed: seedWithFiles(),
        // this host's provider never answers the file listing: its scans stay running until it stops
        vcs: { fixture: withListFiles(stuck.provider, () => Effect.never) },
        // a lease far longer than the test: only the release on stop lets the second host resume them
        scanWorker: { concurrency: 4, pollIntervalMs: 20, leaseMs: 10 * 60_000 },
        drainMs: 200
      })
      repositoryId = await onboard(first, "1001", ["main", "release", "develop"])
      await until("three running scans", async () => Object.values(await statuses(first!, repositoryId)).every((s) => s === "running"))
      const scans = (await readAllPages(first, `${api}/repositories/${repositoryId}/scans`)).items
      scanIds = scans.map((s: any) => s.id).sort()
      const startedAt = Object.fromEntries(scans.map((s: any) => [s.id, s.startedAt]))
      await first.stop()
      first = undefined

      const fixture = FixtureVcs.make()
      second = await startTestHost({
        store: postgresStore(url)(),
        seed: { organizations: [] },
        vcs: {
          fixture: withListFiles(fixture.provider, () =>
            Effect.sync(() => {
              secondHostListings++
            }))
        },
        scanWorker: { concurrency: 4, pollIntervalMs: 20 }
      })
      await until(
        "the resumed scans succeeded",
        async () => Object.values(await statuses(second!, repositoryId)).every((s) => s === "succeeded")
      )
      const resumed = (await readAllPages(second, `${api}/repositories/${repositoryId}/scans`)).items
      expect(resumed.map((s: any) => s.id).sort()).toEqual(scanIds)
      for (const s of resumed) {
        expect(s).toMatchObject({ status: "succeeded", trigger: "onboarding", findingCount: 1 })
        // started once, by the first host; finished by the second
        expect(s.startedAt).toBe(startedAt[s.id])
        // claimed by the first host, then (released) by the second
        expect(s.attempts).toBeGreaterThanOrEqual(2)
      }
      expect(secondHostListings).toBe(3)
    })
  })
})
