/** Connection health through the core's workflows: every provider call through a connection records its outcome. */
import { assert, describe, it } from "@effect/vitest"
import { RepositoryStore, VcsProvider, VcsProviderError, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import {
  caller,
  connectionId,
  type Fixture,
  onboard,
  orgId,
  publish,
  routineRun,
  run,
  runQueued,
  standardMappings
} from "./support/scanWorkflows.js"
import { type AllStores } from "./support/stores.js"

describe("connection health (every provider call through a connection)", () => {
  type Method = keyof typeof VcsProvider.Service

  /**
   * The fixture provider with a switch per method: while `refuse` names a reason for a method, its
   * calls fail with that `VcsProviderError`. `calls` counts the calls that reached the provider.
   */
  const switchable = () => {
    const refuse: { [K in Method]?: VcsProviderError["reason"] } = {}
    const calls: { [K in Method]?: number } = {}
    const provider = (fixture: Fixture): typeof VcsProvider.Service => {
      const p = fixture.provider
      const gate = <A, E>(method: Method, call: () => Effect.Effect<A, E>) =>
        Effect.suspend((): Effect.Effect<A, E | VcsProviderError> => {
          calls[method] = (calls[method] ?? 0) + 1
          const reason = refuse[method]
          return reason === undefined ? call() : Effect.fail(new VcsProviderError({ reason }))
        })
      return {
        listRepositories: (ctx, options) => gate("listRepositories", () => p.listRepositories(ctx, options)),
        listBranches: (ctx, repository) => gate("listBranches", () => p.listBranches(ctx, repository)),
        readFile: (ctx, file) => gate("readFile", () => p.readFile(ctx, file)),
        listFiles: (ctx, at) => gate("listFiles", () => p.listFiles(ctx, at)),
        openRemediation: (ctx, write) => gate("openRemediation", () => p.openRemediation(ctx, write))
      }
    }
    return { refuse, calls, provider }
  }

  const statusOf = (store: AllStores) => Effect.map(store.vcsConnections.get(orgId, connectionId), (c) => Option.getOrThrow(c).status)

  /** The repository store, recording every connection status written through it in `writes`. */
  const recordingWrites = (store: AllStores, writes: Array<string>): typeof RepositoryStore.Service => ({
    repositories: store.repositories,
    assignments: store.assignments,
    vcsConnections: {
      ...store.vcsConnections,
      setHealth: (org, id, status) =>
        Effect.andThen(Effect.sync(() => writes.push(status)), store.vcsConnections.setHealth(org, id, status))
    }
  })

  it.effect("a scan refused with unauthorized fails provider-unauthorized and marks the connection error; the next answered scan marks it active", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          provider.refuse.listFiles = "unauthorized"
          const [refused] = yield* runQueued(store)
          assert.deepStrictEqual([refused?.status, refused?.failure], ["failed", "provider-unauthorized"])
          assert.strictEqual(yield* statusOf(store), "error")
          const [view] = (yield* Workflows.Onboarding.listVcsConnections(caller, { limit: 10 })).items
          assert.strictEqual(view?.status, "error", "the connections route shows it")

          delete provider.refuse.listFiles
          yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
          const [answered] = yield* runQueued(store)
          assert.strictEqual(answered?.status, "succeeded")
          assert.strictEqual(yield* statusOf(store), "active")
        }),
      provider.provider
    )
  })

  it.effect("the reads of one scan all refused with unauthorized write the status once; a connection already error is not written again", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          provider.refuse.readFile = "unauthorized"
          const writes: Array<string> = []
          const [refused] = yield* runQueued(store).pipe(Effect.provideService(RepositoryStore, recordingWrites(store, writes)))
          assert.strictEqual(refused?.failure, "provider-unauthorized")
          assert.isAbove(provider.calls.readFile ?? 0, 0)
          assert.deepStrictEqual(writes, ["error"])

          provider.refuse.listFiles = "unauthorized"
          yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
          const [again] = yield* runQueued(store).pipe(Effect.provideService(RepositoryStore, recordingWrites(store, writes)))
          assert.strictEqual(again?.failure, "provider-unauthorized")
          assert.deepStrictEqual(writes, ["error"], "refused again: nothing new to write")
          assert.strictEqual(yield* statusOf(store), "error")
        }),
      provider.provider
    )
  })

  it.effect("a rate-limited or unreachable provider leaves the status as it was", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* runQueued(store)
          for (const [start, reason] of [["active", "rate-limited"], ["error", "rate-limited"], ["error", "unavailable"]] as const) {
            yield* store.vcsConnections.setStatus(orgId, connectionId, start)
            provider.refuse.listFiles = reason
            yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
            const writes: Array<string> = []
            const [scan] = yield* runQueued(store).pipe(Effect.provideService(RepositoryStore, recordingWrites(store, writes)))
            assert.strictEqual(scan?.failure, `provider-${reason}`)
            assert.deepStrictEqual(writes, [])
            assert.strictEqual(yield* statusOf(store), start)
          }
        }),
      provider.provider
    )
  })

  it.effect("an inactive connection stays inactive, whatever the provider answers", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* runQueued(store)
          yield* store.vcsConnections.setStatus(orgId, connectionId, "inactive")
          yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
          const [scan] = yield* runQueued(store)
          assert.strictEqual(scan?.failure, "provider-not-configured")
          // the available-repositories route still asks the provider of an inactive connection
          provider.refuse.listRepositories = "unauthorized"
          const refused = yield* Effect.result(Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: true }))
          assert.isTrue(
            Result.isFailure(refused) && refused.failure._tag === "VcsProviderError" && refused.failure.reason === "unauthorized"
          )
          assert.strictEqual(yield* statusOf(store), "inactive")
          delete provider.refuse.listRepositories
          assert.strictEqual((yield* Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: true })).length, 1)
          assert.strictEqual(yield* statusOf(store), "inactive")
        }),
      provider.provider
    )
  })

  it.effect("the onboarding lists apply the rule; onboarding refuses an error connection before asking the provider", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          provider.refuse.listRepositories = "unauthorized"
          const refused = yield* Effect.result(Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: false }))
          assert.isTrue(
            Result.isFailure(refused) && refused.failure._tag === "VcsProviderError" && refused.failure.reason === "unauthorized"
          )
          assert.strictEqual(yield* statusOf(store), "error")

          const asked = provider.calls.listRepositories
          const notActive = yield* Effect.result(onboard(["main"]))
          assert.isTrue(Result.isFailure(notActive) && notActive.failure._tag === "ConnectionNotActive")
          assert.strictEqual(provider.calls.listRepositories, asked, "no provider call for a connection that is not active")

          // the token was renewed: lists that may come from the adapter's cache prove nothing ...
          delete provider.refuse.listRepositories
          const branches = yield* Workflows.Onboarding.listAvailableBranches(caller, connectionId, {
            fullName: "acme/api",
            defaultBranch: "main"
          })
          assert.deepStrictEqual(branches.map((b) => b.name).sort(), ["huge", "main", "release"])
          yield* Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: false })
          assert.strictEqual(yield* statusOf(store), "error", "a list that may be cached does not restore the connection")
          // ... a refreshed repository list asks the provider, and its answer marks the connection active again
          yield* Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: true })
          assert.strictEqual(yield* statusOf(store), "active")
          assert.deepStrictEqual((yield* onboard(["main"])).scans, [{ branchName: "main", status: "queued" }])

          yield* store.vcsConnections.setStatus(orgId, connectionId, "error")
          provider.refuse.listBranches = "not-found"
          const unknown = yield* Effect.result(
            Workflows.Onboarding.listAvailableBranches(caller, connectionId, { fullName: "acme/gone", defaultBranch: "main" })
          )
          assert.isTrue(Result.isFailure(unknown) && unknown.failure._tag === "VcsProviderError" && unknown.failure.reason === "not-found")
          assert.strictEqual(yield* statusOf(store), "active", "not-found is an answer: the credentials were accepted")
        }),
      provider.provider
    )
  })

  it.effect("a routine remediation refused with unauthorized marks the connection error, after its scan marked it active", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        // the scan reads through an error connection (it marks it active), then the write is refused
        yield* store.vcsConnections.setStatus(orgId, connectionId, "error")
        fixture.failNextWrite("unauthorized")
        const { scans } = yield* routineRun(store)
        assert.deepStrictEqual([scans[0]?.trigger, scans[0]?.status], ["routine", "succeeded"])
        const [request] = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual([request?.status, request?.failure], ["failed", "permission-denied"])
        assert.strictEqual(yield* statusOf(store), "error")

        // a write refused for its content was still answered with the credentials accepted
        fixture.failNextWrite("conflict")
        const target = { orgId, repositoryId: repository.id, branchName: "main", scanId: scans[0]!.id }
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "conflict")
        assert.strictEqual(yield* statusOf(store), "active")
        fixture.failNextWrite("unauthorized")
        yield* TestClock.adjust(60_000)
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "permission-denied")
        assert.strictEqual(yield* statusOf(store), "error")
      })
    ))
})
