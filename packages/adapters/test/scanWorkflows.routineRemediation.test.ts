/**
 * Remediation within the routine scan (issue 7): a crash after the provider's write, a remediation
 * that dies on every run, the findings it remediates from, a write the provider refuses.
 */
import { assert, describe, it } from "@effect/vitest"
import { Workflows } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import {
  caller,
  claimAll,
  connectionId,
  day,
  events,
  onboard,
  orgId,
  publish,
  routineRun,
  run,
  runQueued,
  standardMappings
} from "./support/scanWorkflows.js"
import { type AllStores } from "./support/stores.js"

describe("remediation within the routine scan", () => {
  /** Claims the queued scans and runs each, answering each run's exit (a defect does not stop the others). */
  const runQueuedExits = (store: AllStores, worker: string) =>
    Effect.flatMap(claimAll(store, worker), (claimed) => Effect.forEach(claimed, (c) => Effect.exit(Workflows.Scans.runScan(c, worker))))

  it.effect("a crash after the provider opened the request leaves the scan running; the next claim records the request once", () => {
    let crashes = 1
    return run(
      (store, fixture) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* publish(standardMappings)
          yield* runQueued(store)
          yield* TestClock.adjust(7 * day)
          assert.strictEqual(yield* Workflows.Scans.routineTick, 1)

          const [first] = yield* runQueuedExits(store, "w1")
          assert.isTrue(first !== undefined && Exit.isFailure(first) && Cause.hasDies(first.cause), "the worker's run died")
          const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
          assert.deepStrictEqual([scan.trigger, scan.status, scan.attempts], ["routine", "running", 1])
          assert.strictEqual(fixture.remediations("acme/api").length, 1, "the provider opened the request before the crash")
          assert.deepStrictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items, [])
          assert.deepStrictEqual(yield* events(store), [])
          // running the routine now while it is pending answers the same scan: no second remediation
          const again = yield* Workflows.Scans.requestScans(caller, repository.id, { remediate: true })
          assert.deepStrictEqual(again.scans.map((s) => s.id), [scan.id])

          yield* TestClock.adjust(61_000) // the lease expires
          const [second] = yield* runQueuedExits(store, "w2")
          assert.isTrue(second !== undefined && Exit.isSuccess(second) && second.value?.status === "succeeded")
          const finished = Option.getOrThrow(yield* store.scans.get(orgId, scan.id))
          assert.deepStrictEqual([finished.status, finished.attempts], ["succeeded", 2])

          const opened = fixture.remediations("acme/api")
          assert.deepStrictEqual(
            opened.map((r) => `${r.number} ${r.state} ${r.writes}`),
            ["1 open 2"],
            "the open request was updated, not duplicated"
          )
          const rows = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
          assert.deepStrictEqual(rows.map((r) => `${r.number} ${r.status} ${r.scanId}`), [`1 open ${scan.id}`])
          assert.strictEqual(rows[0]!.changes.length, 4)
          const audit = (yield* store.audit.list(orgId, { limit: 50 })).items.filter((a) => a.action.startsWith("remediation."))
          assert.deepStrictEqual(audit.map((a) => a.action), ["remediation.open"])
          assert.deepStrictEqual((yield* events(store)).map((e) => e.type), ["service.remediation_pull_request.created"])
        }),
      (fixture) => ({
        ...fixture.provider,
        openRemediation: (ctx, write) =>
          Effect.flatMap(
            fixture.provider.openRemediation(ctx, write),
            (opened) => crashes-- > 0 ? Effect.die("worker crashed") : Effect.succeed(opened)
          )
      })
    )
  })

  it.effect("a remediation that dies on every run is given up with its scan after 3 claims", () =>
    run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* publish(standardMappings)
          yield* runQueued(store)
          yield* TestClock.adjust(7 * day)
          yield* Workflows.Scans.routineTick
          for (let i = 0; i < 3; i++) {
            const [exit] = yield* runQueuedExits(store, `w${i}`)
            assert.isTrue(exit !== undefined && Exit.isFailure(exit), `run ${i + 1} died`)
            yield* TestClock.adjust(61_000)
          }
          assert.deepStrictEqual(yield* claimAll(store, "w9"), [])
          const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
          assert.deepStrictEqual([scan.status, scan.failure, scan.attempts], ["failed", "abandoned", 3])
          assert.deepStrictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items, [])
        }),
      (fixture) => ({ ...fixture.provider, openRemediation: () => Effect.die("worker crashed") })
    ))

  it.effect("the routine scan remediates from the findings it just read, not the previous scan's", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        // changed between the onboarding scan and the routine scan: the old image moved to line 1
        fixture.files.setFile(
          { orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main", path: "Dockerfile" },
          "FROM node:20\nRUN true\n"
        )
        const { scans } = yield* routineRun(store)
        assert.strictEqual(scans[0]?.status, "succeeded")
        const [request] = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.strictEqual(request?.scanId, scans[0]!.id)
        assert.include(
          request!.changes.map((c) => `${c.file}:${c.line}:${c.column} ${c.from} -> ${c.to}`),
          "Dockerfile:1:6 node:20 -> node:20.11.1"
        )
        const files = Object.fromEntries(fixture.remediations("acme/api")[0]!.files.map((f) => [f.path, f.content]))
        assert.strictEqual(files["Dockerfile"], "FROM node:20.11.1\nRUN true\n")
      })
    ))

  it.effect("a provider that refuses the write: a failed request is recorded and the routine scan still succeeds", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        fixture.failNextWrite("forbidden")
        const { scans } = yield* routineRun(store)
        assert.deepStrictEqual([scans[0]?.trigger, scans[0]?.status], ["routine", "succeeded"])
        const rows = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual(rows.map((r) => `${r.status} ${r.failure}`), ["failed permission-denied"])
        assert.deepStrictEqual((yield* events(store)).map((e) => e.type), ["service.remediation_pull_request.failed"])
        assert.deepStrictEqual(yield* claimAll(store), [], "nothing left to retry")
      })
    ))
})
