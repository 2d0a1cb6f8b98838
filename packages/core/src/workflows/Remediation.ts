/**
 * Remediation pull/merge requests (issue 7; spec 3: never as a side effect of publish; spec 6: the
 * remediation family). During a routine scan (before it is finished, under its lease), a tracked branch whose findings have an active
 * published mapping gets one request that rewrites those references; an open request of the branch
 * is updated, not duplicated. The provider is called outside any transaction; the request row, its
 * audit row and its event are then written together.
 */
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { OrgId, RepositoryId, ScanId, VcsConnectionId } from "../Id.js"
import type { PageRequest } from "../Page.js"
import type { AuditStore } from "../ports/AuditStore.js"
import { Ids } from "../ports/Ids.js"
import type { OutboxStore } from "../ports/OutboxStore.js"
import type { PolicyStore } from "../ports/PolicyStore.js"
import { RemediationStore } from "../ports/RemediationStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { ScanStore } from "../ports/ScanStore.js"
import { SnoozeStore } from "../ports/SnoozeStore.js"
import { type Transaction, transaction } from "../ports/Transaction.js"
import type { RemediationWrite, VcsProvider } from "../ports/VcsProvider.js"
import type { WebhookStore } from "../ports/WebhookStore.js"
import * as Remediation from "../Remediation.js"
import type { Repository } from "../Repository.js"
import * as ResolutionIndex from "../ResolutionIndex.js"
import type { Finding } from "../Scanner.js"
import * as Text from "../Text.js"
import { policyForBranch } from "./BranchPolicy.js"
import { audit, type Caller, emit, now } from "./Caller.js"
import { type ConnectedProvider, connectedRepository } from "./ConnectedProvider.js"
import { isTracked, loadRepository } from "./RepositoryAccess.js"

/**
 * The branch's open request, if any. At most one is open per branch, and every request of the
 * branch created after it failed (a later success updated it or superseded it), so the newest
 * request of the branch that did not fail is the open one, or there is none.
 */
const openRequestOf = (orgId: OrgId, repositoryId: RepositoryId, branchName: string) =>
  RemediationStore.use((remediations) =>
    Effect.map(
      remediations.latest(orgId, repositoryId, branchName, { excludeFailed: true }),
      Option.filter((r) => r.status === "open")
    )
  )

/**
 * Reads each changed file at the branch head and rewrites it. Changes whose file is gone or whose
 * text moved since the scan are left out; files left with no change are not written.
 */
const rewriteFiles = (
  provider: ConnectedProvider,
  repository: Repository,
  branchName: string,
  changes: ReadonlyArray<Remediation.RemediationChange>
) =>
  Effect.gen(function*() {
    const byFile = new Map<string, Array<Remediation.RemediationChange>>()
    for (const c of changes) {
      const list = byFile.get(c.file)
      if (list === undefined) byFile.set(c.file, [c])
      else list.push(c)
    }
    const rewritten = yield* Effect.forEach([...byFile], ([path, fileChanges]) =>
      Effect.map(
        provider.readFile({ fullName: repository.fullName, branch: branchName, path }),
        Option.flatMap((file) => {
          const result = Remediation.rewrite(file.content, fileChanges)
          return result.applied.length === 0
            ? Option.none()
            : Option.some({ file: { path, content: result.content, previousVersion: file.version }, applied: result.applied })
        })
      ), { concurrency: 8 })
    const files = rewritten.flatMap(Option.toArray)
    return {
      files: files.map((f) => f.file),
      applied: files.flatMap((f) => f.applied)
    }
  })

/** Whether a re-run found exactly the changes already recorded (then it records nothing). */
const sameChanges = (a: ReadonlyArray<Remediation.RemediationChange>, b: ReadonlyArray<Remediation.RemediationChange>) =>
  a.length === b.length && a.every((c, i) => Equal.equals(c, b[i]!))

/**
 * What remediating a branch reads and writes: the branch's findings, policy and snoozes, the
 * request with its audit row and event, and the provider it goes through.
 */
export type RemediateServices =
  | RemediationStore
  | RepositoryStore
  | ScanStore
  | PolicyStore
  | SnoozeStore
  | AuditStore
  | WebhookStore
  | OutboxStore
  | Transaction
  | Ids
  | VcsProvider

/**
 * Remediates one tracked branch from its findings (`Remediation.plan` over the branch's policy and
 * the repository's active snoozes): `findings` when given (the scan worker passes those of the scan
 * it is running, not stored yet), otherwise the branch's stored ones. Nothing to change: nothing is
 * opened and None is answered. Otherwise the provider commits the rewritten files to the head
 * branch and opens the request, or updates the branch's open one; the answer is the recorded
 * request (`open`, or `failed` with a `failure` code when the provider refused or could not be
 * reached). Running it again is harmless: the provider updates the branch's open request.
 */
export const remediateBranch = (target: {
  readonly orgId: OrgId
  readonly repositoryId: RepositoryId
  readonly branchName: string
  readonly scanId: ScanId
  readonly findings?: ReadonlyArray<Finding> | undefined
  /**
   * What the scan that calls this has read already (not read again), and the provider it read
   * through (so the connection status its calls decided is where remediation starts from).
   */
  readonly repository?: Repository | undefined
  readonly provider?: ConnectedProvider | undefined
}): Effect.Effect<Option.Option<Remediation.RemediationRequest>, never, RemediateServices> =>
  Effect.gen(function*() {
    const remediations = yield* RemediationStore
    const { repositories } = yield* RepositoryStore
    const ids = yield* Ids
    const { branchName, orgId, repositoryId, scanId } = target
    const found = target.repository === undefined ? yield* repositories.get(orgId, repositoryId) : Option.some(target.repository)
    if (Option.isNone(found) || !isTracked(found.value, branchName)) return Option.none()
    const repository = found.value
    const planned = Remediation.plan({
      findings: target.findings ?? (yield* ScanStore.use((scans) => scans.allFindings(orgId, repositoryId, branchName))),
      policy: ResolutionIndex.build(yield* policyForBranch(orgId, repositoryId, branchName)),
      snoozes: yield* SnoozeStore.use((snoozes) => snoozes.listByRepository(orgId, repositoryId)),
      now: yield* now
    })
    if (planned.length === 0) return Option.none()

    // the provider is called outside any transaction: no row lock is held across network calls
    const headBranch = Remediation.headBranchFor(branchName)
    const attempt = yield* Effect.result(Effect.gen(function*() {
      const provider = target.provider ?? (yield* connectedRepository(orgId, repository))
      const { applied, files } = yield* rewriteFiles(provider, repository, branchName, planned)
      if (applied.length === 0) return Option.none()
      const title = Remediation.title(branchName)
      const write: RemediationWrite = {
        fullName: repository.fullName,
        baseBranch: branchName,
        headBranch,
        title,
        body: Remediation.body(branchName, applied),
        commitMessage: title,
        files
      }
      return Option.some({ opened: yield* provider.openRemediation(write), applied })
    }))
    if (Result.isSuccess(attempt) && Option.isNone(attempt.success)) return Option.none()

    const caller: Caller = { orgId, actor: { kind: "system", name: "routine-worker" }, correlationId: scanId }
    const routing = { family: "remediation" as const, repositoryTeamId: repository.assignedTeamId }
    return yield* transaction(Effect.gen(function*() {
      // one writer per repository at a time: two runs never open two requests for one branch
      yield* repositories.lock(orgId, repositoryId)
      const at = (yield* now).toISOString()
      const fresh = (changes: ReadonlyArray<Remediation.RemediationChange>) =>
        Effect.map(ids.next("remediation"), (id): Remediation.RemediationRequest => ({
          id,
          repositoryId,
          branchName,
          headBranch,
          status: "open",
          failure: null,
          number: null,
          url: null,
          scanId,
          changes,
          createdAt: at,
          updatedAt: at,
          mergedAt: null
        }))

      // a run of this scan was recorded already (its worker died before finishing the scan, and the
      // scan was run again): the provider's request is the same, so nothing new is recorded or told
      const latest = yield* remediations.latest(orgId, repositoryId, branchName)
      const recorded = Option.filter(latest, (r) => r.scanId === scanId)

      if (Result.isFailure(attempt)) {
        const failure = Remediation.failureKind(attempt.failure)
        if (Option.isSome(recorded) && recorded.value.status === "failed" && recorded.value.failure === failure) return recorded
        const request: Remediation.RemediationRequest = { ...(yield* fresh(planned)), status: "failed", failure }
        yield* remediations.put(orgId, request)
        yield* audit(caller, "remediation.fail", "remediation_request", request.id, { outcome: "rejected", detail: failure })
        yield* emit(caller, routing, [{
          type: "service.remediation_pull_request.failed",
          data: { repository_id: repositoryId, action: "failed", failure_kind: failure, changed_at: at }
        }])
        return Option.some(request)
      }

      const { applied, opened } = Option.getOrThrow(attempt.success)
      // the provider's text, stored and told as every store can hold it
      const url = Text.storableText(opened.url)
      const current = yield* openRequestOf(orgId, repositoryId, branchName)
      let request: Remediation.RemediationRequest
      if (Option.isSome(current) && current.value.number === opened.number) {
        if (current.value.scanId === scanId && sameChanges(current.value.changes, applied)) return current
        request = { ...current.value, headBranch, url, scanId, changes: applied, updatedAt: at }
        yield* remediations.put(orgId, request)
        yield* audit(caller, "remediation.update", "remediation_request", request.id)
      } else {
        // the provider's previous request was merged or closed: ours becomes history
        if (Option.isSome(current)) yield* remediations.put(orgId, { ...current.value, status: "superseded", updatedAt: at })
        request = { ...(yield* fresh(applied)), number: opened.number, url }
        yield* remediations.put(orgId, request)
        yield* audit(caller, "remediation.open", "remediation_request", request.id)
      }
      yield* emit(caller, routing, [{
        type: "service.remediation_pull_request.created",
        data: { repository_id: repositoryId, pull_request_url: url, action: "created", changed_at: at }
      }])
      return Option.some(request)
    }))
  })

/** A provider's merge of one of its pull/merge requests, as its webhook tells it. */
export interface ProviderMerge {
  /** The repository as the provider names it (GitHub full name, GitLab project path). */
  readonly repositoryFullName: string
  /** The provider's request number (GitHub `number`, GitLab `iid`). */
  readonly number: number
  /** When the provider merged it (ISO 8601, UTC). */
  readonly mergedAt: string
}

/**
 * A merge webhook of `connectionId`: the request the service opened under that number in the
 * connection's repository of that name (`Remediation.merge` says which) becomes `merged`, with its
 * audit row in the same transaction. No CloudEvent: the contracts' catalog has no merged type. A
 * number the service never opened, or a request merged already, changes nothing. Answers the
 * requests it marked.
 */
export const markMerged = Effect.fn("Remediation.markMerged")(function*(
  caller: Caller,
  connectionId: VcsConnectionId,
  merge: ProviderMerge
) {
  const remediations = yield* RemediationStore
  const { repositories } = yield* RepositoryStore
  const { orgId } = caller
  const matching = yield* repositories.findByFullName(orgId, connectionId, merge.repositoryFullName)
  if (matching.length === 0) return []
  return yield* transaction(Effect.gen(function*() {
    const marked: Array<Remediation.RemediationRequest> = []
    for (const repository of matching) {
      // the routine's writer holds this lock while it supersedes or updates the branch's request
      yield* repositories.lock(orgId, repository.id)
      const found = yield* remediations.findByNumber(orgId, repository.id, merge.number)
      if (Option.isNone(found)) continue
      const merged = Remediation.merge(found.value, merge.number, merge.mergedAt, (yield* now).toISOString())
      if (merged === undefined) continue
      yield* remediations.put(orgId, merged)
      yield* audit(caller, "remediation.merge", "remediation_request", merged.id)
      marked.push(merged)
    }
    return marked
  }))
})

/** GET /repositories/{id}/remediation-requests: newest first. */
export const listRemediationRequests = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  page: PageRequest
) {
  const remediations = yield* RemediationStore
  yield* loadRepository(caller.orgId, repositoryId)
  return yield* remediations.list(caller.orgId, repositoryId, page)
})
