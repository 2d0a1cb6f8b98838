/**
 * The decision API's workflow (issue 18, core `Workflows.Decisions`): a call reads each policy once
 * per (repository, branch), never per reference, whatever the order and mix of its requests; and
 * each decision is the one `Decision.decide` gives against that policy.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Decision, PolicyStore, RepositoryStore, SnoozeStore, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import { caller, onboard, publish, run } from "./support/scanWorkflows.js"

/** The stores with every read the workflow may make counted. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>, reads: Map<string, number>) =>
  Effect.gen(function*() {
    const policy = yield* PolicyStore
    const repositories = yield* RepositoryStore
    const snoozes = yield* SnoozeStore
    const count = <F extends (...args: Array<any>) => any>(name: string, f: F): F =>
      ((...args: Array<any>) => {
        reads.set(name, (reads.get(name) ?? 0) + 1)
        return f(...args)
      }) as F
    return yield* effect.pipe(
      Effect.provideService(PolicyStore, {
        ...policy,
        policyGroups: { ...policy.policyGroups, all: count("policyGroups.all", policy.policyGroups.all) },
        published: { ...policy.published, listByGroups: count("published.listByGroups", policy.published.listByGroups) }
      }),
      Effect.provideService(RepositoryStore, {
        ...repositories,
        repositories: { ...repositories.repositories, get: count("repositories.get", repositories.repositories.get) },
        assignments: { ...repositories.assignments, get: count("assignments.get", repositories.assignments.get) }
      }),
      Effect.provideService(SnoozeStore, { ...snoozes, listByRepository: count("snoozes.listByRepository", snoozes.listByRepository) })
    )
  })

const images = ["node:20", "node:18", "redis:7", "nginx", "Not A Reference!", "ghcr.io/acme/migrate:1.4"]

describe("Workflows.Decisions.resolve", () => {
  it.effect("reads the policy once per (repository, branch) and each repository once, for any mix of requests", () =>
    run(() =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main", "release"])
        yield* publish([["node:20", "node:20.11.1"], ["redis", "redis:7.4"]])
        // few images, scopes and platforms: a call repeats each many times (decided once per call)
        const request = fc.record({
          image: fc.constantFrom(...images),
          scope: fc.constantFrom("none", "default", "main", "release"),
          platform: fc.constantFrom(undefined, "linux/amd64", "linux/arm64/v8", "not a platform")
        }).map(({ image, platform, scope }): Decision.DecisionRequest => ({
          image,
          ...(platform === undefined ? {} : { platform }),
          ...(scope === "none" ? {} : { repositoryId: repository.id, ...(scope === "default" ? {} : { branch: scope }) })
        }))
        const samples = fc.sample(fc.array(request, { minLength: 1, maxLength: 400 }), 25)
        for (const requests of samples) {
          const reads = new Map<string, number>()
          const decisions = yield* counted(Stream.runCollect(Workflows.Decisions.resolve(caller, requests)), reads)
          // no branch and "main" (the default branch) are one policy
          const branches = new Set(requests.flatMap((r) => r.repositoryId === undefined ? [] : [r.branch ?? "main"]))
          const withoutRepository = requests.some((r) => r.repositoryId === undefined) ? 1 : 0
          const withRepository = branches.size > 0 ? 1 : 0
          assert.strictEqual(reads.get("published.listByGroups") ?? 0, branches.size + withoutRepository, "one policy read per group")
          assert.strictEqual(reads.get("policyGroups.all") ?? 0, branches.size + withoutRepository)
          assert.strictEqual(reads.get("assignments.get") ?? 0, branches.size)
          assert.strictEqual(reads.get("repositories.get") ?? 0, withRepository, "the repository once")
          assert.strictEqual(reads.get("snoozes.listByRepository") ?? 0, withRepository, "its snoozes once")

          // in request order, each as the REST resolve (here `Explain`, which answers as it does) decides it
          assert.deepStrictEqual(decisions.map((d) => d.image), requests.map((r) => r.image))
          for (let i = 0; i < requests.length; i++) {
            const explained = yield* Effect.result(Workflows.Decisions.explain(caller, requests[i]!))
            const decision = decisions[i]!
            if (explained._tag === "Failure") {
              assert.strictEqual(explained.failure._tag, "InvalidReferenceInBody")
              assert.strictEqual(decision.invalid?.field, (explained.failure as { readonly path: string }).path)
            } else {
              assert.strictEqual(decision.resolution?.mappingId ?? null, explained.success.resolved?.mapping.id ?? null)
            }
          }
        }
      })
    ))

  it.effect("with an IndexCache, a policy indexed once serves later calls, and any change of the policy is decided anew", () =>
    run(() =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish([["node:20", "node:20.11.1"]])
        const cache = Workflows.Decisions.makeIndexCache(2)
        let builds = 0
        const seenIndexes = new Set<unknown>()
        const counting: typeof Workflows.Decisions.IndexCache.Service = {
          index: (policy) => {
            const before = cache.index(policy)
            // a hit answers the very index it answered before; a miss builds a new one
            if (!seenIndexes.has(before)) builds++
            seenIndexes.add(before)
            return before
          }
        }
        const decideNode = Effect.map(
          Stream.runCollect(Workflows.Decisions.resolve(caller, [{ image: "node:20", repositoryId: repository.id }])),
          (decisions) => decisions[0]?.resolution?.toImage ?? null
        ).pipe(Effect.provideService(Workflows.Decisions.IndexCache, counting))

        assert.strictEqual(yield* decideNode, "node:20.11.1")
        assert.strictEqual(yield* decideNode, "node:20.11.1")
        assert.strictEqual(builds, 1, "the second call reuses the index")
        yield* publish([["node:20", "node:20.12.0"]])
        assert.strictEqual(yield* decideNode, "node:20.12.0", "a published change is never answered from the old index")
        assert.strictEqual(builds, 2)
      })
    ))
})
