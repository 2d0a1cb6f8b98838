/**
 * The decision API (issue 18): many references decided in one call, and one explained. A call
 * reads the store once per policy it needs, never per reference: the requests are grouped by
 * (repository, branch), and each group's policy and its repository's snoozes are read and indexed
 * once (`ResolutionIndex.build`, or the `IndexCache`'s index of the same policy) before the first
 * decision. The repository and branch checks are the REST resolve's (`loadRepository`, `trackedBranch`), so a reference is refused for the same
 * reasons on both; an invalid image or platform is an `invalid` decision of its own, not a failure.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Decision from "../Decision.js"
import type { RepositoryId } from "../Id.js"
import { SnoozeStore } from "../ports/SnoozeStore.js"
import type { Repository } from "../Repository.js"
import type { ResolutionPolicy } from "../Resolution.js"
import * as ResolutionIndex from "../ResolutionIndex.js"
import { policyForAllRepositories, policyForBranch } from "./BranchPolicy.js"
import { type Caller, now } from "./Caller.js"
import * as Policy from "./Policy.js"
import { loadRepository, trackedBranch } from "./RepositoryAccess.js"

/**
 * A policy's index, and the decisions made against it before any snooze. A decision depends on the
 * instant only through which mappings are active (`ResolutionIndex.epochAt`), so it is remembered
 * while the epoch lasts: callers name the same images call after call (a base image in every
 * Dockerfile, a stream cut into calls, a CI fleet), and each is decided once.
 */
export interface IndexedPolicy {
  readonly index: ResolutionIndex.ResolutionIndex
  /** What decides references at `now` (snoozes not applied: they are the repository's). */
  readonly deciderAt: (now: Date) => (request: Decision.DecisionRequest) => Decision.Decision
}

/**
 * Decisions remembered per policy at most: past it the memory starts again, so a caller naming ever
 * new images cannot grow it without bound (about 10 MB of decisions).
 */
const maxRemembered = 20_000

interface Memory {
  readonly epoch: number
  /** By platform ("" for none), then image as written. */
  readonly decided: Map<string, Map<string, Decision.Decision>>
  size: number
}

/** `index` with its memory of decisions. */
export const indexed = (index: ResolutionIndex.ResolutionIndex): IndexedPolicy => {
  let memory: Memory = { epoch: -1, decided: new Map(), size: 0 }
  return {
    index,
    deciderAt: (now) => {
      const epoch = ResolutionIndex.epochAt(index, now)
      if (memory.epoch !== epoch) memory = { epoch, decided: new Map(), size: 0 }
      // a call deciding at another epoch meanwhile gets a memory of its own: this one stays this epoch's
      const mine = memory
      return (request) => {
        const platform = request.platform ?? ""
        let byImage = mine.decided.get(platform)
        if (byImage === undefined) mine.decided.set(platform, byImage = new Map())
        let decision = byImage.get(request.image)
        if (decision === undefined) {
          decision = Decision.decideUnsnoozed(index, request, now)
          if (mine.size >= maxRemembered) {
            mine.decided.clear()
            mine.decided.set(platform, byImage = new Map())
            mine.size = 0
          }
          byImage.set(request.image, decision)
          mine.size++
        }
        return decision
      }
    }
  }
}

/**
 * Indexes of the policies decided against lately: building the index of 10,000 mappings costs far
 * more than reading them, and callers send the same policy call after call. A hit is a policy equal
 * in every field to one indexed before, so it is the index `ResolutionIndex.build` would give, and
 * its remembered decisions are the ones that index gives. Without this service every call builds its
 * own (and remembers its decisions for that call only).
 */
export class IndexCache extends Context.Service<IndexCache, {
  readonly index: (policy: ResolutionPolicy) => IndexedPolicy
}>()("@image-policy/core/Decisions/IndexCache") {}

/**
 * Whether two values of plain data (what a store returns: strings, numbers, booleans, null, arrays,
 * objects) are equal in every field. A store that hands out the same objects again (the memory store)
 * is compared by reference; others field by field, which is still a fraction of serializing the policy
 * to compare it (~20 ms for 10,000 mappings, per call).
 */
const samePlainData = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!samePlainData(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const aKeys = Object.keys(a)
  if (aKeys.length !== Object.keys(b).length) return false
  for (const key of aKeys) {
    if (!Object.hasOwn(b, key) || !samePlainData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false
  }
  return true
}

/** An `IndexCache` keeping the last `capacity` policies' indexes. */
export const makeIndexCache = (capacity = 8): typeof IndexCache.Service => {
  // most recently used first
  const entries: Array<{ readonly policy: ResolutionPolicy; readonly indexed: IndexedPolicy }> = []
  return {
    index: (policy) => {
      const at = entries.findIndex((entry) => samePlainData(entry.policy, policy))
      if (at !== -1) {
        const [hit] = entries.splice(at, 1)
        entries.unshift(hit!)
        return hit!.indexed
      }
      const built = indexed(ResolutionIndex.build(policy))
      entries.unshift({ policy, indexed: built })
      if (entries.length > capacity) entries.pop()
      return built
    }
  }
}

const uncached: typeof IndexCache.Service = { index: (policy) => indexed(ResolutionIndex.build(policy)) }

/** What the references of one (repository, branch) are decided against. */
interface Scope {
  readonly decide: (request: Decision.DecisionRequest) => Decision.Decision
  readonly active: Decision.ActiveSnoozes
}

const noSnoozes: Decision.ActiveSnoozes = new Map()

/**
 * Decisions per streamed message (one NDJSON line, ~40 KB): of 50, 100, 400 and 1,000, 100 cost the
 * least CPU on both sides in bench/decisions.js.
 */
const chunkSize = 100

/** A request's group as written; two keys may still name one branch (no branch and the default branch). */
const requestKey = (request: Decision.DecisionRequest) =>
  request.repositoryId === undefined ? "" : `${request.repositoryId}\u0000${request.branch ?? ""}`

/**
 * Reads what the requests need, once per (repository, branch), and returns the decision of each
 * request at one instant. Fails on the first request whose repository is unknown
 * (`RepositoryNotFound`) or whose branch is not tracked (a field error naming `requests[i].branch`).
 */
export const prepare = Effect.fnUntraced(function*(caller: Caller, requests: ReadonlyArray<Decision.DecisionRequest>) {
  const at = yield* now
  const indexes = Option.getOrElse(yield* Effect.serviceOption(IndexCache), () => uncached)
  const repositories = new Map<RepositoryId, Repository>()
  const snoozes = new Map<RepositoryId, Decision.ActiveSnoozes>()
  const byBranch = new Map<string, Scope>()
  const byRequest = new Map<string, Scope>()
  for (let i = 0; i < requests.length; i++) {
    const request = requests[i]!
    const key = requestKey(request)
    if (byRequest.has(key)) continue
    const { repositoryId } = request
    if (repositoryId === undefined) {
      // snoozes are about one repository's images: none applies without a repository
      byRequest.set(key, { decide: indexes.index(yield* policyForAllRepositories(caller.orgId)).deciderAt(at), active: noSnoozes })
      continue
    }
    let repository = repositories.get(repositoryId)
    if (repository === undefined) repositories.set(repositoryId, repository = yield* loadRepository(caller.orgId, repositoryId))
    const branchName = yield* trackedBranch(repository, request.branch, `requests[${i}].branch`)
    const branchKey = `${repositoryId}\u0000${branchName}`
    let scope = byBranch.get(branchKey)
    if (scope === undefined) {
      let active = snoozes.get(repositoryId)
      if (active === undefined) {
        const all = yield* SnoozeStore.use((store) => store.listByRepository(caller.orgId, repositoryId))
        snoozes.set(repositoryId, active = Decision.activeSnoozes(all, at))
      }
      const policy = yield* policyForBranch(caller.orgId, repositoryId, branchName)
      byBranch.set(branchKey, scope = { decide: indexes.index(policy).deciderAt(at), active })
    }
    byRequest.set(key, scope)
  }
  // requests of one repository and branch usually follow each other: their scope is looked up once
  let last: Decision.DecisionRequest | undefined
  let lastScope: Scope | undefined
  return (request: Decision.DecisionRequest): Decision.Decision => {
    const scope = last !== undefined && last.repositoryId === request.repositoryId && last.branch === request.branch
      ? lastScope!
      : byRequest.get(requestKey(request))!
    last = request
    lastScope = scope
    return Decision.withSnoozes(scope.active, scope.decide(request))
  }
})

/**
 * RPC `Resolve`: the decision of every request, in request order. Everything is read before the
 * first decision, so a refused call fails before it streams anything; the decisions are then
 * computed as the stream is pulled, a chunk at a time.
 */
export const resolve = (caller: Caller, requests: ReadonlyArray<Decision.DecisionRequest>) =>
  Stream.unwrap(Effect.map(prepare(caller, requests), (decide) => {
    function* decisions() {
      for (const request of requests) yield decide(request)
    }
    return Stream.fromIteratorSucceed(decisions(), chunkSize)
  }))

/**
 * RPC `Explain`: the REST resolve's answer (its `considered` list included) for one request; without
 * a repository, against the groups that apply to every repository.
 */
export const explain = (caller: Caller, request: Decision.DecisionRequest) =>
  request.repositoryId === undefined
    ? Effect.flatMap(policyForAllRepositories(caller.orgId), (policy) => Policy.explain(policy, request))
    : Policy.resolve(caller, request.repositoryId, request)
