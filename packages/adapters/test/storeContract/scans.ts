/** Storage contract: branch scans and findings (`ScanStore`). */
import { assert } from "@effect/vitest"
import { type ClaimedScan, Scan, type Scanner } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt } from "./support.js"

export const scans = (
  it: ContractIt,
  { options, store, newOrg, routine, scan, finding, succeeded, failed, trackedRepository, branchStatuses, claimOf, claimNow, complete }:
    Contract
) => {
  it.effect("scans: enqueue answers the branch's queued or running scan instead of adding a second", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const onboarding = yield* complete(org.id, scan(repo.id, "main", "onboarding"), succeeded([]))
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["succeeded", "queued"])
      const first = scan(repo.id, "main", "manual")
      assert.deepStrictEqual(yield* store.scans.enqueue(org.id, first), first)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, first.id)), first)
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["queued", "queued"], "enqueue sets the branch queued")

      const second = scan(repo.id, "main", "manual")
      assert.deepStrictEqual(yield* store.scans.enqueue(org.id, second), first, "a queued scan answers")
      assert.isTrue(Option.isNone(yield* store.scans.get(org.id, second.id)), "no second row")
      const release = scan(repo.id, "release")
      assert.deepStrictEqual(yield* store.scans.enqueue(org.id, release), release, "another branch queues its own")

      const [claimed] = yield* claimOf([first.id], "w1", claimNow)
      assert.strictEqual(claimed?.scan.status, "running")
      const third = scan(repo.id, "main", "routine")
      assert.deepStrictEqual(yield* store.scans.enqueue(org.id, third), claimed!.scan, "a running scan answers")
      assert.isTrue(yield* store.scans.finish(org.id, first.id, "w1", succeeded([])))
      assert.deepStrictEqual(yield* store.scans.enqueue(org.id, third), third, "after it ended, a new scan is queued")
      // the claim took the release scan too (claims take every queued scan up to the limit)
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["queued", "running"])
      const main = yield* store.scans.list(org.id, repo.id, { limit: 50 }, { branchName: "main" })
      assert.deepStrictEqual(main.items.map((x) => x.id), [third.id, first.id, onboarding.id])
    }))

  it.effect("scans: queueDepth counts queued and running scans of every organization", () =>
    Effect.gen(function*() {
      const before = yield* store.scans.queueDepth()
      const [a, b] = [yield* newOrg(), yield* newOrg()]
      const [ra, rb] = [yield* trackedRepository(a.id), yield* trackedRepository(b.id)]
      const first = scan(ra.id, "main", "manual")
      const second = scan(rb.id, "main", "manual")
      yield* store.scans.enqueue(a.id, first)
      yield* store.scans.enqueue(b.id, second)
      const queued = yield* store.scans.queueDepth()
      assert.deepStrictEqual({ queued: queued.queued - before.queued, running: queued.running - before.running }, { queued: 2, running: 0 })
      assert.strictEqual((yield* claimOf([first.id], "w1", claimNow)).length, 1)
      const held = yield* store.scans.queueDepth()
      // the claim may take other tests' queued scans too: count only ours through the totals' sum
      assert.strictEqual(held.queued + held.running - before.queued - before.running, 2)
      assert.isTrue(yield* store.scans.finish(a.id, first.id, "w1", succeeded([])))
      assert.isTrue(yield* store.scans.finish(b.id, second.id, "w1", succeeded([])))
      const ended = yield* store.scans.queueDepth()
      assert.strictEqual(ended.queued + ended.running, before.queued + before.running, "ended scans leave the queue")
    }))

  it.effect("scans: claim leases queued scans oldest first, sets them and their branches running; a leased scan is not claimed twice", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const older = scan(repo.id, "release", "onboarding")
      const newer = scan(repo.id, "main", "onboarding")
      yield* store.scans.enqueue(org.id, older)
      yield* store.scans.enqueue(org.id, newer)
      const ids = [older.id, newer.id]
      const now = new Date("2026-03-01T00:00:00.000Z")
      const claims = yield* claimOf(ids, "w1", now, 30_000)
      assert.deepStrictEqual(
        claims,
        [older, newer].map((x): ClaimedScan => ({
          orgId: org.id,
          scan: { ...x, status: "running", startedAt: now.toISOString(), attempts: 1 }
        }))
      )
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["running", "running"])
      assert.deepStrictEqual(yield* claimOf(ids, "w2", new Date(now.getTime() + 29_000)), [], "leased")
      assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, older.id)).status, "running")
    }))

  it.effect("scans: a claim whose clock was read before the scan was queued starts it when it was queued", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const queued = scan(repo.id, "main", "onboarding")
      yield* store.scans.enqueue(org.id, queued)
      const before = new Date(Date.parse(queued.queuedAt) - 5)
      const [claimed] = yield* claimOf([queued.id], "w1", before)
      assert.strictEqual(claimed?.scan.startedAt, queued.queuedAt)
      assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, queued.id)).startedAt, queued.queuedAt)
    }))

  it.effect("scans: an expired lease lets another worker claim a running scan; the first worker's finish then writes nothing", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const s = scan(repo.id, "main")
      yield* store.scans.enqueue(org.id, s)
      const now = new Date("2026-03-02T00:00:00.000Z")
      assert.strictEqual((yield* claimOf([s.id], "crashed", now, 30_000)).length, 1)
      const resumed = yield* claimOf([s.id], "w2", new Date(now.getTime() + 31_000), 30_000)
      assert.strictEqual(resumed.length, 1, "the crashed worker's lease expired")
      assert.strictEqual(resumed[0]!.scan.startedAt, now.toISOString(), "startedAt is the first start")
      assert.strictEqual(resumed[0]!.scan.attempts, 2, "the second claim")

      assert.isFalse(yield* store.scans.finish(org.id, s.id, "crashed", succeeded([finding("Dockerfile", 1, 6)])))
      const still = Option.getOrThrow(yield* store.scans.get(org.id, s.id))
      assert.deepStrictEqual([still.status, still.finishedAt, still.findingCount], ["running", null, 0])
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), [], "no findings written")
      assert.isTrue(Option.isNone(yield* store.scans.latestSucceeded(org.id, repo.id, "main")))
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["running", "queued"])

      const outcome = failed("provider-rate-limited")
      assert.isTrue(yield* store.scans.finish(org.id, s.id, "w2", outcome))
      assert.isFalse(yield* store.scans.finish(org.id, s.id, "w2", succeeded([])), "an ended scan cannot end again")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, s.id)), {
        ...s,
        status: "failed",
        failure: "provider-rate-limited",
        startedAt: now.toISOString(),
        finishedAt: outcome.at,
        attempts: 2
      })
      assert.deepStrictEqual(yield* claimOf([s.id], "w3", new Date(now.getTime() + 3_600_000)), [], "an ended scan is never claimed")
    }))

  it.effect("scans: each claim counts an attempt; after maxScanAttempts expired leases the next claim abandons the scan and hands out the next one", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      // older than every other test's scans, so claims with limit 1 see these first
      const prior = { ...scan(repo.id, "main"), queuedAt: "2000-01-01T00:00:00.000Z" }
      const kept = [finding("Dockerfile", 1, 6)]
      yield* complete(org.id, prior, succeeded(kept))
      const poison = { ...scan(repo.id, "main", "routine"), queuedAt: "2000-01-01T00:00:01.000Z" }
      const next = { ...scan(repo.id, "release"), queuedAt: "2000-01-01T00:00:02.000Z" }
      yield* store.scans.enqueue(org.id, poison)
      yield* store.scans.enqueue(org.id, next)

      const start = new Date("2026-04-01T00:00:00.000Z")
      const at = (ms: number) => new Date(start.getTime() + ms)
      const claimOne = (worker: string, now: Date) => store.scans.claim({ worker, now, leaseMs: 60_000, limit: 1 })
      assert.strictEqual(Scan.maxScanAttempts, 3)
      for (let attempt = 1; attempt <= Scan.maxScanAttempts; attempt++) {
        // each run hangs past its 60 s lease (or its worker dies): the scan is claimed again
        const claims = yield* claimOne(`w${attempt}`, at((attempt - 1) * 61_000))
        assert.deepStrictEqual(claims, [{
          orgId: org.id,
          scan: { ...poison, status: "running", startedAt: start.toISOString(), attempts: attempt }
        }], `claim ${attempt}`)
        assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)).attempts, attempt)
      }
      assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, next.id)).status, "queued", "the newer scan waits behind it")

      const giveUp = at(Scan.maxScanAttempts * 61_000)
      const claims = yield* claimOne("w4", giveUp)
      assert.deepStrictEqual(claims, [{
        orgId: org.id,
        scan: { ...next, status: "running", startedAt: giveUp.toISOString(), attempts: 1 }
      }], "the abandoned scan is not handed out, and does not take the slot")
      const abandoned: Scan.BranchScan = {
        ...poison,
        status: "failed",
        failure: "abandoned",
        startedAt: start.toISOString(),
        finishedAt: giveUp.toISOString(),
        attempts: Scan.maxScanAttempts
      }
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)), abandoned)
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["failed", "running"])
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), kept, "the previous findings are kept")
      assert.strictEqual(Option.getOrThrow(yield* store.scans.latestSucceeded(org.id, repo.id, "main")).id, prior.id)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latest(org.id, repo.id, "main")), abandoned)

      assert.isFalse(yield* store.scans.finish(org.id, poison.id, "w3", succeeded([])), "its last worker's lease is gone")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)), abandoned)
      assert.deepStrictEqual(yield* claimOf([poison.id], "w5", at(86_400_000)), [], "a finished scan is never claimed again")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)), abandoned)
      const again = scan(repo.id, "main", "manual")
      assert.deepStrictEqual(yield* store.scans.enqueue(org.id, again), again, "the branch can be scanned again")
    }))

  it.effect("scans: a scan on its last attempt runs out its lease; if it finishes, no later claim touches it", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const s = scan(repo.id, "main")
      yield* store.scans.enqueue(org.id, s)
      const start = new Date("2026-04-02T00:00:00.000Z")
      const at = (ms: number) => new Date(start.getTime() + ms)
      for (let attempt = 1; attempt <= Scan.maxScanAttempts; attempt++) {
        const [claimed] = yield* claimOf([s.id], `w${attempt}`, at((attempt - 1) * 61_000))
        assert.strictEqual(claimed?.scan.attempts, attempt)
      }
      const last = `w${Scan.maxScanAttempts}`
      // still within the last lease: neither claimed nor abandoned
      assert.deepStrictEqual(yield* claimOf([s.id], "early", at((Scan.maxScanAttempts - 1) * 61_000 + 30_000)), [])
      assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, s.id)).status, "running")
      const outcome = succeeded([finding("Dockerfile", 2, 6)])
      assert.isTrue(yield* store.scans.finish(org.id, s.id, last, outcome))
      const done = Option.getOrThrow(yield* store.scans.get(org.id, s.id))
      assert.deepStrictEqual([done.status, done.failure, done.attempts], ["succeeded", null, Scan.maxScanAttempts])
      assert.deepStrictEqual(yield* claimOf([s.id], "later", at(86_400_000)), [])
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, s.id)), done, "a finished scan is never abandoned")
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["succeeded", "queued"])
    }))

  it.effect("scans: a succeeded finish replaces the branch's findings and counts; a failed one keeps the previous findings", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const firstFindings = [finding("b/Dockerfile", 3, 6), finding("a/Dockerfile", 1, 6, "node:20")]
      const o1 = succeeded(firstFindings, 4)
      const s1 = scan(repo.id, "main", "onboarding")
      const done = yield* complete(org.id, s1, o1)
      assert.deepStrictEqual(done, {
        ...s1,
        status: "succeeded",
        failure: null,
        commitSha: (o1 as { commitSha: string }).commitSha,
        fileCount: 4,
        findingCount: 2,
        attempts: 1,
        startedAt: claimNow.toISOString(),
        finishedAt: o1.at
      })
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), [firstFindings[1]!, firstFindings[0]!])
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["succeeded", "queued"])

      const replacement = [finding("compose.yaml", 7, 12, "redis:7")]
      const s2 = yield* complete(org.id, scan(repo.id, "main"), succeeded(replacement, 1))
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), replacement, "replaced whole")
      assert.strictEqual(s2.findingCount, 1)

      const s3 = yield* complete(org.id, scan(repo.id, "main", "routine"), failed("too-large"))
      assert.deepStrictEqual([s3.status, s3.failure, s3.commitSha, s3.fileCount, s3.findingCount], ["failed", "too-large", null, 0, 0])
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), replacement, "a failed scan keeps the findings")
      assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["failed", "queued"])
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latest(org.id, repo.id, "main")), s3)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latestSucceeded(org.id, repo.id, "main")), s2)
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "release"), [], "findings are per branch")
      assert.isTrue(Option.isNone(yield* store.scans.latest(org.id, repo.id, "release")))

      // an empty success clears the findings
      yield* complete(org.id, scan(repo.id, "main"), succeeded([]))
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), [])
    }))

  it.effect("scans: finding text with NUL or a lone surrogate is stored with U+FFFD in its place, and the scan succeeds", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const raw: Scanner.Finding = {
        kind: "kubernetes",
        file: "k8s/odd.yaml",
        line: 2,
        column: 3,
        reference: "nginx:1\u0000x",
        unresolved: ["A\u0000B", "\ud800"],
        stage: "s\u0000",
        platform: "linux/amd64"
      }
      const s = yield* complete(org.id, scan(repo.id, "main"), succeeded([raw, finding("k8s/odd.yaml", 1, 1)]))
      assert.strictEqual(s.status, "succeeded")
      const [first, second] = yield* store.scans.allFindings(org.id, repo.id, "main")
      assert.deepStrictEqual(first, finding("k8s/odd.yaml", 1, 1))
      assert.deepStrictEqual(second, {
        kind: "kubernetes",
        file: "k8s/odd.yaml",
        line: 2,
        column: 3,
        reference: "nginx:1\uFFFDx",
        unresolved: ["A\uFFFDB", "\uFFFD"],
        stage: "s\uFFFD",
        platform: "linux/amd64"
      })
    }))

  it.effect("scans: lists newest first by (queuedAt, id) with cursors, optionally of one branch", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const m1 = yield* complete(org.id, scan(repo.id, "main"), succeeded([]))
      const r1 = yield* complete(org.id, scan(repo.id, "release"), failed())
      const m2 = yield* complete(org.id, scan(repo.id, "main"), succeeded([]))
      const r2 = yield* store.scans.enqueue(org.id, scan(repo.id, "release"))
      const m3 = yield* store.scans.enqueue(org.id, scan(repo.id, "main"))
      const all = yield* allPages((p) => store.scans.list(org.id, repo.id, p), 2)
      assert.deepStrictEqual(all.items, [m3, r2, m2, r1, m1])
      assert.strictEqual(all.pages, 3)
      const main = yield* allPages((p) => store.scans.list(org.id, repo.id, p, { branchName: "main" }), 1)
      assert.deepStrictEqual(main.items.map((x) => x.id), [m3.id, m2.id, m1.id])
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latest(org.id, repo.id, "main")), m3)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latestSucceeded(org.id, repo.id, "main")), m2)
      assert.isTrue(Option.isNone(yield* store.scans.latestSucceeded(org.id, repo.id, "release")))
      const other = yield* trackedRepository(org.id)
      assert.deepStrictEqual((yield* store.scans.list(org.id, other.id, { limit: 50 })).items, [], "per repository")
    }))

  it.effect("scans: findings page by (file, line, column) in byte order; findings at one position keep the scanner's order", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const input = [
        finding("b/Dockerfile", 3, 6, "nginx:1"),
        finding("a/compose.yml", 10, 12),
        finding("a/compose.yml", 2, 5),
        finding("a/compose.yml", 10, 3),
        finding("b/Dockerfile", 3, 6, "nginx:2"),
        finding("Dockerfile", 1, 6),
        finding("a/compose.yml", 9, 30)
      ]
      yield* complete(org.id, scan(repo.id, "main"), succeeded(input))
      const expected = [5, 2, 6, 3, 1, 0, 4].map((i) => input[i]!)
      const paged = yield* allPages((p) => store.scans.findings(org.id, repo.id, "main", p), 2)
      assert.deepStrictEqual(paged.items, expected)
      assert.strictEqual(paged.pages, 4)
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), expected)
      const one = yield* allPages((p) => store.scans.findings(org.id, repo.id, "main", p), 1)
      assert.deepStrictEqual(one.items, expected, "ties are split across pages without loss")
      const whole = yield* store.scans.findings(org.id, repo.id, "main", { limit: 7 })
      assert.deepStrictEqual([whole.items.length, whole.nextCursor], [7, null])
    }))

  it.effect("scans: routine targets are the tracked branches of repositories whose routine is active, with the last routine scan", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const active = { ...routine(null, "Every 3 days"), intervalDays: 3 }
      const paused = { ...routine(null, "Paused"), active: false }
      const repo = yield* trackedRepository(org.id, { routine: active })
      const idle = yield* trackedRepository(org.id, { routine: paused })
      const targets = () => Effect.map(store.scans.routineTargets(), (all) => all.filter((t) => t.orgId === org.id))
      const expected = (main: string | null, release: string | null) =>
        [["main", main], ["release", release]].map(([branchName, lastRoutineScanAt]) => ({
          orgId: org.id,
          repositoryId: repo.id,
          branchName: branchName!,
          intervalDays: 3,
          trackedAt: repo.createdAt,
          lastRoutineScanAt
        }))
      assert.deepStrictEqual(yield* targets(), expected(null, null))
      yield* complete(org.id, scan(repo.id, "main", "onboarding"), succeeded([]))
      yield* complete(org.id, scan(repo.id, "release", "manual"), succeeded([]))
      assert.deepStrictEqual(yield* targets(), expected(null, null), "only routine scans count")
      const r1 = yield* complete(org.id, scan(repo.id, "main", "routine"), failed())
      assert.deepStrictEqual(yield* targets(), expected(r1.queuedAt, null))
      const r2 = yield* store.scans.enqueue(org.id, scan(repo.id, "main", "routine"))
      assert.deepStrictEqual(yield* targets(), expected(r2.queuedAt, null), "the newest routine scan, whatever its status")
      yield* complete(org.id, scan(idle.id, "main", "routine"), succeeded([]))
      assert.isFalse((yield* targets()).some((t) => t.repositoryId === idle.id), "an inactive routine has no targets")
    }))

  if (options.concurrency) {
    it.effect("concurrency: parallel enqueues of one branch keep one pending scan and all answer it", () =>
      Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const answers = yield* Effect.all(
          Array.from({ length: 10 }, () => store.transaction(store.scans.enqueue(org.id, scan(repo.id, "main")))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(answers.map((x) => x.id)).size, 1)
        assert.deepStrictEqual((yield* store.scans.list(org.id, repo.id, { limit: 50 })).items, [answers[0]!])
      }))

    it.effect("concurrency: two workers claiming scans get disjoint sets, and every claimed branch is running", () =>
      Effect.gen(function*() {
        const org = yield* newOrg()
        const branches = Array.from({ length: 40 }, (_, i) => `b${i}`)
        const repo = yield* trackedRepository(org.id, { branches })
        const ours = branches.map((b) => scan(repo.id, b))
        for (const s of ours) yield* store.scans.enqueue(org.id, s)
        const ids = ours.map((s) => s.id as string)
        const claim = (worker: string) =>
          Effect.map(claimOf(ids, worker, new Date("2026-07-01T00:00:00.000Z")), (cs) => cs.map((c) => c.scan.id as string))
        const [x, y] = yield* Effect.all([claim("x"), claim("y")], { concurrency: 2 })
        assert.deepStrictEqual(x.filter((id) => y.includes(id)), [])
        assert.strictEqual(x.length + y.length, 40)
        assert.isTrue((yield* branchStatuses(org.id, repo.id)).every((status) => status === "running"), "no lost branch update")
      }))
  }
}
