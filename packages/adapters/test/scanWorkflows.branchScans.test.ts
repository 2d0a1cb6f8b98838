/** Branch scans through the core's workflows (issue 7): onboarding queues them, a worker runs them. */
import { assert, describe, it } from "@effect/vitest"
import { type Ids, ScanStore, type Stores, VcsProvider, VcsProviderError, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import {
  caller,
  claimAll,
  connectionId,
  groupId,
  onboard,
  orgId,
  publish,
  run,
  runQueued,
  standardMappings
} from "./support/scanWorkflows.js"

describe("branch scans", () => {
  it.effect("onboarding queues one scan per tracked branch with the repository; the answer is unchanged", () =>
    run((store) =>
      Effect.gen(function*() {
        const result = yield* onboard()
        assert.deepStrictEqual(result.scans, [{ branchName: "main", status: "queued" }, { branchName: "release", status: "queued" }])
        const scans = yield* store.scans.list(orgId, result.repository.id, { limit: 10 })
        assert.sameMembers(scans.items.map((s) => `${s.branchName} ${s.trigger} ${s.status}`), [
          "main onboarding queued",
          "release onboarding queued"
        ])
        const [view] = (yield* Workflows.Onboarding.listRepositories(caller, { limit: 10 }, {})).items
        assert.deepStrictEqual(view!.branches.map((b) => b.scan.status), ["queued", "queued"])
      })
    ))

  it.effect("the findings route answers the scan its findings come from, even when a scan succeeds while it reads", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* runQueued(store)
        const first = Option.getOrThrow(yield* store.scans.latestSucceeded(orgId, repository.id, "main"))
        fixture.files.setFile(
          { orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main", path: "Dockerfile" },
          "FROM node:22\n"
        )
        yield* TestClock.adjust(1_000)
        yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
        const [claimed] = yield* claimAll(store)
        // the next scan finishes just after the route read the previous scan's findings
        let raced = false
        const services = yield* Effect.context<Stores | Ids | VcsProvider>()
        const racing: typeof ScanStore.Service = {
          ...store.scans,
          findings: (...args) =>
            Effect.tap(store.scans.findings(...args), () =>
              raced
                ? Effect.void
                : Effect.andThen(Effect.sync(() => (raced = true)), Workflows.Scans.runScan(claimed!, "w1").pipe(Effect.provide(services))))
        }
        const page = yield* Workflows.Scans.listFindings(caller, repository.id, {}, { limit: 50 }).pipe(
          Effect.provideService(ScanStore, racing)
        )
        assert.isTrue(raced)
        assert.notStrictEqual(page.scan?.id, first.id)
        assert.strictEqual(page.scan?.id, claimed!.scan.id)
        assert.deepStrictEqual(page.items.filter((f) => f.file === "Dockerfile").map((f) => f.reference), ["node:22"])
      })
    ))

  it.effect("a worker runs a claimed scan: findings with the mapping that applies and why; nothing is remediated", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard()
        yield* publish(standardMappings)
        const claimed = yield* claimAll(store)
        assert.strictEqual(claimed.length, 2)
        const finished = yield* Effect.forEach(claimed, (c) => Workflows.Scans.runScan(c, "w1"))
        const main = finished.find((s) => s?.branchName === "main")!
        assert.strictEqual(main.status, "succeeded")
        assert.strictEqual(main.fileCount, 4, "the four scannable files, not the README")
        assert.strictEqual(main.findingCount, 7)
        assert.match(main.commitSha!, /^[0-9a-f]{40}$/)
        assert.isNotNull(main.finishedAt)

        const page = yield* Workflows.Scans.listFindings(caller, repository.id, {}, { limit: 50 })
        assert.strictEqual(page.branchName, "main")
        assert.strictEqual(page.scan?.id, main.id)
        assert.deepStrictEqual(page.items.map((f) => `${f.file}:${f.line} ${f.reference} -> ${f.resolution?.toImage ?? "-"}`), [
          ".github/workflows/ci.yml:6 node:20 -> node:20.11.1",
          "Dockerfile:3 node:${NODE_VERSION} -> node:20.11.1",
          "Dockerfile:6 node:20 -> node:20.11.1",
          "Dockerfile:9 gcr.io/distroless/nodejs20-debian12 -> -",
          "deploy/api.yaml:9 ghcr.io/acme/migrate:1.4 -> ghcr.io/acme/migrate:1.5",
          "deploy/api.yaml:12 ghcr.io/acme/api:2.0.1 -> -",
          "docker-compose.yml:2 redis:7 -> redis:7.4"
        ])
        assert.strictEqual(page.items[0]!.resolution!.reason, "selected: exact match")
        assert.strictEqual(page.items[0]!.resolution!.mappingReason, "patched base")
        assert.strictEqual(page.items[0]!.resolution!.policyGroupId, groupId)

        const release = yield* Workflows.Scans.listFindings(caller, repository.id, { branch: "release" }, { limit: 50 })
        assert.deepStrictEqual(release.items.map((f) => f.reference), ["node:20"])
        const untracked = yield* Effect.result(Workflows.Scans.listFindings(caller, repository.id, { branch: "hotfix" }, { limit: 50 }))
        assert.isTrue(
          Result.isFailure(untracked) && untracked.failure._tag === "InvalidReferenceInBody" && untracked.failure.path === "branch"
        )

        const [view] = (yield* Workflows.Onboarding.listRepositories(caller, { limit: 10 }, {})).items
        assert.deepStrictEqual(view!.branches.map((b) => b.scan.status), ["succeeded", "succeeded"])
        // publish and onboarding scans open no request (spec 3)
        assert.deepStrictEqual(fixture.remediations("acme/api"), [])
        assert.strictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items.length, 0)
        // the lease ended with the scan: finishing it again is refused and changes nothing
        assert.isUndefined(yield* Workflows.Scans.runScan(claimed[0]!, "w1"))
      })
    ))

  it.effect("a scan whose lease another worker took over writes nothing", () =>
    run((store) =>
      Effect.gen(function*() {
        yield* onboard(["main"])
        const [claimed] = yield* claimAll(store, "w1")
        yield* TestClock.adjust(61_000)
        const [taken] = yield* claimAll(store, "w2")
        assert.strictEqual(taken!.scan.id, claimed!.scan.id, "the expired lease is resumed by another worker")
        assert.isUndefined(yield* Workflows.Scans.runScan(claimed!, "w1"))
        const done = yield* Workflows.Scans.runScan(taken!, "w2")
        assert.strictEqual(done?.status, "succeeded")
      })
    ))

  it.effect("a provider error fails the scan with its reason, never the worker", () =>
    run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          const [scan] = yield* runQueued(store)
          assert.strictEqual(scan?.status, "failed")
          assert.strictEqual(scan?.failure, "provider-rate-limited")
          assert.strictEqual(scan?.findingCount, 0)
          const [view] = (yield* Workflows.Onboarding.listRepositories(caller, { limit: 10 }, {})).items
          assert.strictEqual(view!.branches[0]!.scan.status, "failed")
          const page = yield* Workflows.Scans.listFindings(caller, repository.id, {}, { limit: 50 })
          assert.deepStrictEqual([page.scan, page.items], [null, []])
        }),
      (fixture) => ({
        ...fixture.provider,
        listFiles: () => Effect.fail(new VcsProviderError({ reason: "rate-limited", retryAfterSeconds: 30 }))
      })
    ))

  it.effect("a branch over the scan limits fails too-large; an inactive connection fails provider-not-configured", () =>
    run((store) =>
      Effect.gen(function*() {
        yield* onboard(["main", "huge"])
        const scans = yield* runQueued(store)
        assert.deepStrictEqual(scans.map((s) => `${s?.branchName} ${s?.status} ${s?.failure}`).sort(), [
          "huge failed too-large",
          "main succeeded null"
        ])

        yield* store.vcsConnections.setStatus(orgId, connectionId, "inactive")
        const { scans: queued } = yield* Workflows.Scans.requestScans(caller, scans[0]!.repositoryId, { branchNames: ["main"] })
        assert.deepStrictEqual(queued.map((s) => `${s.branchName} ${s.trigger} ${s.status}`), ["main manual queued"])
        const [again] = yield* runQueued(store)
        assert.strictEqual(again?.failure, "provider-not-configured")
      })
    ))

  it.effect("scans on request: all tracked branches or the named ones; an untracked name is refused at its index", () =>
    run((store) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard()
        yield* runQueued(store)
        const refused = yield* Effect.result(Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main", "nope"] }))
        assert.isTrue(
          Result.isFailure(refused) && refused.failure._tag === "InvalidReferenceInBody" && refused.failure.path === "branchNames[1]"
        )
        const { scans } = yield* Workflows.Scans.requestScans(caller, repository.id, {})
        assert.deepStrictEqual(scans.map((s) => `${s.branchName} ${s.trigger}`), ["main manual", "release manual"])
        const again = yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["release"] })
        assert.strictEqual(again.scans[0]!.id, scans[1]!.id, "a pending scan is answered, not queued twice")
        const listed = yield* Workflows.Scans.listScans(caller, repository.id, { branch: "release" }, { limit: 10 })
        assert.deepStrictEqual(listed.items.map((s) => s.trigger), ["manual", "onboarding"])
        const audit = yield* store.audit.list(orgId, { limit: 50 })
        assert.include(audit.items.map((a) => a.action), "repository.scan")
      })
    ))
})
