/**
 * Branch scans (spec 3: onboarding queues one per tracked branch; issue 7): queueing them (on
 * onboarding, on request and on the routine's schedule), running one for the scan worker, and the
 * scans and findings routes. A scan reads the branch through the `VcsProvider` port and stores the
 * `Scanner` findings; a provider that cannot answer fails the scan with a reason, never the worker.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { OrgId, RepositoryId } from "../Id.js"
import type { Page, PageRequest } from "../Page.js"
import { Ids } from "../ports/Ids.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { type ClaimedScan, ScanStore } from "../ports/ScanStore.js"
import { type Transaction, transaction } from "../ports/Transaction.js"
import type { Repository } from "../Repository.js"
import * as ResolutionIndex from "../ResolutionIndex.js"
import * as Scan from "../Scan.js"
import * as Scanner from "../Scanner.js"
import { policyForBranch } from "./BranchPolicy.js"
import { audit, type Caller, now } from "./Caller.js"
import { connectedRepository } from "./ConnectedProvider.js"
import { remediateBranch, type RemediateServices } from "./Remediation.js"
import { isTracked, loadRepository, trackedBranch } from "./RepositoryAccess.js"

/** Files read at once by one scan: a few requests in flight, not the provider's whole quota. */
const readConcurrency = 8

/** Queues one scan per branch and says which of the answered scans are new (not a pending one). */
const enqueue = (
  orgId: OrgId,
  repository: Repository,
  trigger: Scan.ScanTrigger,
  branchNames: ReadonlyArray<string> | undefined
) =>
  Effect.gen(function*() {
    const scans = yield* ScanStore
    const ids = yield* Ids
    const queuedAt = (yield* now).toISOString()
    const names = [...new Set(branchNames ?? repository.branches.map((b) => b.branchName))].filter((b) => isTracked(repository, b))
    const out: Array<{ readonly scan: Scan.BranchScan; readonly created: boolean }> = []
    for (const branchName of names) {
      const id = yield* ids.next("scan")
      const scan = yield* scans.enqueue(orgId, {
        id,
        repositoryId: repository.id,
        branchName,
        trigger,
        status: "queued",
        failure: null,
        commitSha: null,
        fileCount: 0,
        findingCount: 0,
        attempts: 0,
        queuedAt,
        startedAt: null,
        finishedAt: null
      })
      out.push({ scan, created: scan.id === id })
    }
    return out
  })

/**
 * Queues a scan of each named tracked branch (all tracked branches when none are named; names the
 * repository does not track are left out: the caller checked them). A branch with a scan already
 * queued or running keeps it, and that scan is answered. Runs inside the caller's transaction.
 */
export const queueScans = (
  caller: Caller,
  repository: Repository,
  trigger: Scan.ScanTrigger,
  branchNames?: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Scan.BranchScan>, never, ScanStore | Ids> =>
  Effect.map(enqueue(caller.orgId, repository, trigger, branchNames), (queued) => queued.map((q) => q.scan))

/** POST /repositories/{id}/scans: scans on demand, of the named tracked branches or of all of them. */
export const requestScans = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  body: { readonly branchNames?: ReadonlyArray<string> | undefined; readonly remediate?: boolean | undefined }
) {
  return yield* transaction(Effect.gen(function*() {
    const repository = yield* loadRepository(caller.orgId, repositoryId)
    if (body.branchNames !== undefined) {
      yield* Effect.forEach(body.branchNames, (branchName, i) => trackedBranch(repository, branchName, `branchNames[${i}]`), {
        discard: true
      })
    }
    // `remediate` runs the routine now: a routine scan is followed by remediation, and the
    // routine's next interval counts from it
    const scans = yield* queueScans(caller, repository, body.remediate === true ? "routine" : "manual", body.branchNames)
    yield* audit(caller, body.remediate === true ? "repository.routine_run" : "repository.scan", "repository", repositoryId)
    return { scans }
  }))
})

/** GET /repositories/{id}/scans: newest first, of one tracked branch when `branch` names one. */
export const listScans = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  query: { readonly branch?: string | undefined },
  page: PageRequest
) {
  const scans = yield* ScanStore
  const repository = yield* loadRepository(caller.orgId, repositoryId)
  if (query.branch === undefined) return yield* scans.list(caller.orgId, repositoryId, page)
  const branchName = yield* trackedBranch(repository, query.branch, "branch")
  return yield* scans.list(caller.orgId, repositoryId, page, { branchName })
})

/**
 * GET /repositories/{id}/findings: the branch's findings (default branch unless `branch` names a
 * tracked one), each with the published mapping that applies to it now and why. `scan` is the
 * scan they come from (the branch's newest succeeded scan), null before any scan succeeded.
 */
export const listFindings = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  query: { readonly branch?: string | undefined },
  page: PageRequest
) {
  const scans = yield* ScanStore
  const repository = yield* loadRepository(caller.orgId, repositoryId)
  const branchName = yield* trackedBranch(repository, query.branch, "branch")
  const latest = scans.latestSucceeded(caller.orgId, repositoryId, branchName)
  // findings change only when a scan succeeds, which changes the newest succeeded scan: reading it
  // before and after the page tells whether both belong to the same scan (else read again)
  let scan = Option.getOrNull(yield* latest)
  let result: Page<Scanner.Finding> = yield* scans.findings(caller.orgId, repositoryId, branchName, page)
  for (let tries = 0; tries < 3; tries++) {
    const after = Option.getOrNull(yield* latest)
    if (after?.id === scan?.id) break
    scan = after
    result = yield* scans.findings(caller.orgId, repositoryId, branchName, page)
  }
  let items: ReadonlyArray<Scan.FindingView> = []
  if (result.items.length > 0) {
    const policy = ResolutionIndex.build(yield* policyForBranch(caller.orgId, repositoryId, branchName))
    const at = yield* now
    items = result.items.map((f) => Scan.toView(policy, f, at))
  }
  return { branchName, scan, items, nextCursor: result.nextCursor }
})

/**
 * Reads and scans the branch; fails with the provider's error. Answers the bound provider too: a
 * routine scan's remediation goes on through it (and through the connection status it knows).
 */
const scanBranch = (orgId: OrgId, repository: Repository, branchName: string) =>
  Effect.gen(function*() {
    const provider = yield* connectedRepository(orgId, repository)
    const at = { fullName: repository.fullName, branch: branchName }
    const tree = yield* provider.listFiles(at)
    const paths = Scan.scannablePaths(tree.paths)
    if (Result.isFailure(paths)) return { status: "failed", failure: paths.failure } as const
    // each file is scanned as soon as it is read: at most `readConcurrency` contents are held at once
    const perFile = yield* Effect.forEach(paths.success, (path) =>
      // read at the listed commit, not the branch: a push during the scan cannot mix two commits
      Effect.map(
        provider.readFile({ fullName: at.fullName, branch: tree.commitSha, path }),
        Option.match({
          // gone since the listing, or over the size limit: skipped
          onNone: () => undefined,
          onSome: (file) => Scan.isFileTooLarge(file.content) ? undefined : Scanner.scanFile(path, file.content)
        })
      ), { concurrency: readConcurrency })
    const read = perFile.filter((f) => f !== undefined)
    return { status: "succeeded", commitSha: tree.commitSha, fileCount: read.length, findings: read.flat(), provider } as const
  })

/**
 * The scan worker's step for one claimed scan: read the branch, scan it, store the outcome under
 * the worker's lease. A provider error fails the scan with its reason (`provider-*`), a branch
 * over the limits with `too-large`. Answers the finished scan, or undefined when the lease was
 * lost (another worker took the scan over; its result counts).
 *
 * A succeeded `routine` scan remediates the branch (spec 3: never on publish, onboarding or
 * manual scans) from the findings it just read, BEFORE the scan is finished, while it still holds
 * its lease: a crash, defect or timeout during remediation leaves the scan `running`, so it is
 * claimed again when the lease expires (at most `Scan.maxScanAttempts` claims) and remediation
 * re-runs; that is harmless, the provider updates the branch's open request. A branch has at most
 * one pending scan, so two remediations of one branch never overlap. A provider error while
 * remediating is not a crash: it is recorded as a `failed` request and the scan succeeds.
 */
export const runScan = (
  claimed: ClaimedScan,
  worker: string
): Effect.Effect<Scan.BranchScan | undefined, never, RemediateServices> =>
  Effect.gen(function*() {
    const scans = yield* ScanStore
    const { orgId, scan } = claimed
    const repository = yield* Effect.option(loadRepository(orgId, scan.repositoryId))
    const result = Option.isNone(repository)
      ? { status: "failed", failure: "provider-not-found" } as const
      : yield* scanBranch(orgId, repository.value, scan.branchName).pipe(
        Effect.catchTag("VcsProviderError", (e) => Effect.succeed({ status: "failed", failure: Scan.failureOf(e) } as const))
      )
    if (result.status === "succeeded" && scan.trigger === "routine") {
      yield* remediateBranch({
        orgId,
        repositoryId: scan.repositoryId,
        branchName: scan.branchName,
        scanId: scan.id,
        findings: result.findings,
        repository: Option.getOrUndefined(repository),
        provider: result.provider
      })
    }
    const at = (yield* now).toISOString()
    const outcome: Scan.ScanOutcome = result.status === "failed"
      ? { status: "failed", at, failure: result.failure }
      : { status: "succeeded", at, commitSha: result.commitSha, fileCount: result.fileCount, findings: result.findings }
    if (!(yield* scans.finish(orgId, scan.id, worker, outcome))) return undefined
    return Option.getOrUndefined(yield* scans.get(orgId, scan.id))
  })

/**
 * The routine worker's tick: queues a `routine` scan of every tracked branch whose active routine
 * is due (`Scan.isRoutineDue`); a branch with a scan queued or running keeps it. Answers how many
 * scans it queued.
 */
export const routineTick: Effect.Effect<number, never, ScanStore | RepositoryStore | Transaction | Ids> = Effect.gen(function*() {
  const scans = yield* ScanStore
  const { repositories } = yield* RepositoryStore
  const at = yield* now
  const due = (yield* scans.routineTargets()).filter((t) => Scan.isRoutineDue(t, at))
  const byRepository = new Map<string, { orgId: OrgId; repositoryId: RepositoryId; branchNames: Array<string> }>()
  for (const t of due) {
    const key = `${t.orgId}/${t.repositoryId}`
    const entry = byRepository.get(key)
    if (entry === undefined) byRepository.set(key, { orgId: t.orgId, repositoryId: t.repositoryId, branchNames: [t.branchName] })
    else entry.branchNames.push(t.branchName)
  }
  let queued = 0
  for (const { branchNames, orgId, repositoryId } of byRepository.values()) {
    queued += yield* transaction(Effect.gen(function*() {
      const repository = yield* repositories.get(orgId, repositoryId)
      if (Option.isNone(repository)) return 0
      const scans = yield* enqueue(orgId, repository.value, "routine", branchNames)
      return scans.filter((s) => s.created).length
    }))
  }
  return queued
})
