// Compliance report benchmark (issue 15, "Reporting"): GET /reports/compliance must answer within
// 200 ms for 1,000 repositories x 3 branches x 20 findings on PostgreSQL. Seeds that volume (60,000
// findings over 60 images, three policy groups with published mappings, explicit assignments on a
// third of the branches, open remediation requests and snoozes), then times the route's workflow
// (`Workflows.Reports.getComplianceReport`: the bulk reads of `ReportStore`, findings counted in SQL
// per bucket, each distinct image resolved once) beside the naive peer that loads every branch's
// policy, scan and findings and resolves each finding (the findings route's way, per branch). Both
// must give the same organization counts before any figure is printed. The HTTP encoding of the
// answer (a few kB of JSON) is not included. Imports the BUILT packages: `npm run build` after
// changes. BENCH_REPORTS_RUNS (default 40) runs of ours, BENCH_REPORTS_NAIVE_RUNS (default 5) of
// the peer. Prints p50/p99 and the ratio; asserts nothing.
import { PgClient, StoreConfig } from "@image-policy/adapters"
import {
  Id,
  OrganizationStore,
  PolicyStore,
  RemediationStore,
  Reports,
  RepositoryStore,
  Resolution,
  Scan,
  ScanStore,
  SnoozeStore,
  Workflows
} from "@image-policy/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { isDeepStrictEqual } from "node:util"
import pg from "pg"

const REPOSITORIES = 1_000
const BRANCHES = ["main", "release", "develop"]
const FINDINGS = 20
const runs = Number(process.env.BENCH_REPORTS_RUNS ?? 40)
const naiveRuns = Number(process.env.BENCH_REPORTS_NAIVE_RUNS ?? 5)

let n = 0
const id = (kind) => {
  const b = new Uint8Array(16)
  new DataView(b.buffer).setUint32(0, ++n)
  return Id.make(kind, b)
}
const iso = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()
const images = Array.from({ length: 60 }, (_, i) => `docker.io/library/img${i}:${i % 7}`)

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const timed = async (count, f) => {
  const out = []
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    await f()
    out.push(performance.now() - t0)
  }
  return out
}

const seed = (run, sql) =>
  Effect.gen(function*() {
    const { organizations, routines, teams } = yield* OrganizationStore
    const { assignments, repositories, vcsConnections } = yield* RepositoryStore
    const { policyGroups, published } = yield* PolicyStore
    const snoozes = yield* SnoozeStore
    const remediations = yield* RemediationStore
    const org = {
      id: id("organization"),
      name: "Bench",
      edition: "enterprise",
      grants: [],
      defaultNotificationTeamId: null,
      cooldownSeconds: 0
    }
    yield* organizations.insert(org)
    const teamRows = Array.from({ length: 10 }, (_, i) => ({ id: id("team"), name: `Team ${i}` }))
    for (const t of teamRows) yield* teams.insert(org.id, t)
    const routine = { id: id("routine"), teamId: teamRows[0].id, name: "Weekly", active: true, intervalDays: 7 }
    yield* routines.insert(org.id, routine)
    const connection = { id: id("vcsConnection"), provider: "github", externalAccountName: "bench", status: "active" }
    yield* vcsConnections.insert(org.id, connection, null)
    const groups = [true, false, false].map((applyToAllRepos, g) => ({
      id: id("policyGroup"),
      name: `Group ${g}`,
      applyToAllRepos,
      notificationRouting: { kind: "inherit" },
      cooldownSeconds: null,
      phases: [{ id: id("phase"), name: "P", sourceType: "internal", position: 0 }]
    }))
    for (const [g, group] of groups.entries()) {
      yield* policyGroups.insert(org.id, group)
      // each group maps a different third of the images (group 0 also a repository-wide one)
      const mapped = images.filter((_, i) => i % 3 === g && i % 2 === 0)
      yield* published.replace(
        org.id,
        group.id,
        [group.phases[0].id],
        mapped.map((from, i) => ({
          id: id("mapping"),
          key: `${from}|`,
          fromImage: from,
          toImage: `${from}-pinned`,
          createdAt: iso(0),
          updatedAt: iso(0),
          phaseId: group.phases[0].id,
          activeFrom: iso(0),
          ...(i === 0 ? { order: 1 } : {})
        }))
      )
    }
    const scans = []
    const findings = []
    for (let r = 0; r < REPOSITORIES; r++) {
      const repo = {
        id: id("repository"),
        vcsConnectionId: connection.id,
        externalRepoId: `${r}`,
        fullName: `bench/r${r}`,
        defaultBranch: "main",
        assignedTeamId: teamRows[r % teamRows.length].id,
        assignedRoutineId: routine.id,
        branches: BRANCHES.map((branchName) => ({ branchName, scan: { status: "succeeded" } })),
        createdAt: iso(r)
      }
      yield* repositories.insert(org.id, repo)
      if (r % 3 === 0) {
        yield* assignments.replace(org.id, repo.id, [{ policyGroupId: groups[1 + (r % 2)].id, branchNames: ["main", "release"] }])
      }
      if (r % 4 === 0) {
        yield* remediations.put(org.id, {
          id: id("remediation"),
          repositoryId: repo.id,
          branchName: "main",
          headBranch: "image-policy/remediate/main",
          status: "open",
          failure: null,
          number: r,
          url: `https://git.example/pr/${r}`,
          scanId: id("scan"),
          changes: [],
          createdAt: iso(r),
          updatedAt: iso(r),
          mergedAt: null
        })
      }
      if (r % 10 === 0) {
        yield* snoozes.insert(org.id, {
          id: id("snoozeRequest"),
          repositoryId: repo.id,
          fromImage: "img1:1",
          reason: "later",
          until: "2999-01-01T00:00:00.000Z",
          status: r % 20 === 0 ? "approved" : "pending",
          createdAt: iso(r),
          reviewedAt: null,
          reviewComment: null
        })
      }
      for (const [b, branchName] of BRANCHES.entries()) {
        const scanId = id("scan")
        scans.push({
          id: scanId,
          repository_id: repo.id,
          branch_name: branchName,
          queued_at: iso(r * 3 + b),
          finished_at: iso(r * 3 + b + 1)
        })
        for (let f = 0; f < FINDINGS; f++) {
          const image = images[(r * 7 + b * 3 + f * 11) % images.length]
          findings.push({
            repository_id: repo.id,
            branch_name: branchName,
            scan_id: scanId,
            file: `f${f}/Dockerfile`,
            image,
            platform: f % 5 === 0 ? "linux/arm64" : null
          })
        }
      }
    }
    // scans and findings in bulk: the worker's path (claim, read the provider, finish) is not what is measured
    for (let i = 0; i < scans.length; i += 1000) {
      yield* sql`INSERT INTO scans (org_id, id, repository_id, branch_name, trigger, status, queued_at, started_at, finished_at, file_count, finding_count)
        SELECT ${org.id}, x.id, x.repository_id, x.branch_name, 'onboarding', 'succeeded', x.queued_at, x.queued_at, x.finished_at, ${FINDINGS}, ${FINDINGS}
        FROM jsonb_to_recordset(${
        JSON.stringify(scans.slice(i, i + 1000))
      }::jsonb) AS x(id text, repository_id text, branch_name text, queued_at text, finished_at text)`
    }
    for (let i = 0; i < findings.length; i += 5000) {
      yield* sql`INSERT INTO scan_findings (org_id, repository_id, branch_name, file, line, col, seq, scan_id, kind, reference, image, normalized, platform)
        SELECT ${org.id}, x.repository_id, x.branch_name, x.file, 1, 6, 0, x.scan_id, 'dockerfile', x.image, x.image, x.image, x.platform
        FROM jsonb_to_recordset(${
        JSON.stringify(findings.slice(i, i + 5000))
      }::jsonb) AS x(repository_id text, branch_name text, scan_id text, file text, image text, platform text)`
    }
    yield* sql`ANALYZE`
    return { org, findings: findings.length }
  })

/** Every page of a list. */
const all = (list) =>
  Effect.gen(function*() {
    const items = []
    let cursor
    do {
      const page = yield* list({ limit: 200, ...(cursor === undefined ? {} : { cursor }) })
      items.push(...page.items)
      cursor = page.nextCursor ?? undefined
    } while (cursor !== undefined)
    return items
  })

/** The naive peer: every branch's policy, scan and findings loaded, every finding resolved (organization counts only). */
const naive = (orgId, now) =>
  Effect.gen(function*() {
    const { assignments, repositories } = yield* RepositoryStore
    const { policyGroups, published } = yield* PolicyStore
    const scans = yield* ScanStore
    const remediations = yield* RemediationStore
    const snoozes = yield* SnoozeStore
    const groups = yield* policyGroups.all(orgId)
    const c = {
      trackedBranches: 0,
      scannedBranches: 0,
      outOfPolicyFindings: 0,
      findingsWithoutMapping: 0,
      openRemediationRequests: 0,
      pendingSnoozes: 0,
      approvedSnoozes: 0,
      oldestOutOfPolicyScanAt: null
    }
    for (const repository of yield* all((page) => repositories.list(orgId, page))) {
      const assigned = yield* assignments.get(orgId, repository.id)
      for (const r of yield* all((page) => remediations.list(orgId, repository.id, page))) {
        if (r.status === "open") c.openRemediationRequests++
      }
      for (const { branchName } of repository.branches) {
        c.trackedBranches++
        const latest = yield* scans.latestSucceeded(orgId, repository.id, branchName)
        if (latest._tag === "None") continue
        c.scannedBranches++
        const applying = groups.filter((g) => g.applyToAllRepos).sort((a, b) => a.name < b.name ? -1 : 1)
          .concat(
            assigned.filter((a) => a.branchNames.includes(branchName)).flatMap((a) =>
              groups.filter((g) => g.id === a.policyGroupId && !g.applyToAllRepos)
            )
          )
        const live = yield* published.listByGroups(orgId, applying.map((g) => g.id))
        const policy = Resolution.compile(applying.map((group) => ({ group, phases: group.phases, published: live.get(group.id) ?? [] })))
        for (const f of yield* scans.allFindings(orgId, repository.id, branchName)) {
          if (Scan.resolveFinding(policy, f, now) === null) c.findingsWithoutMapping++
          else {
            c.outOfPolicyFindings++
            c.oldestOutOfPolicyScanAt = Reports.earlier(c.oldestOutOfPolicyScanAt, latest.value.finishedAt)
          }
        }
      }
    }
    for (const s of yield* all((page) => snoozes.list(orgId, page))) {
      if (s.status === "pending") c.pendingSnoozes++
      else if (s.status === "approved" && Date.parse(s.until) > now.getTime()) c.approvedSnoozes++
    }
    return c
  })

const postgresUrl = async () => {
  const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 2000 })
  try {
    await admin.connect()
  } catch {
    return undefined
  }
  const name = `ip_bench_reports_${Date.now()}`
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

export const main = async () => {
  const db = await postgresUrl()
  if (db === undefined) {
    console.log("PostgreSQL: skipped (no server at DATABASE_URL or 127.0.0.1:5432)")
    return
  }
  const client = PgClient.layerFromUrl(db.url, { maxConnections: 4 })
  const runtime = ManagedRuntime.make(Layer.merge(StoreConfig.migrated(client), client))
  const run = (effect) => runtime.runPromise(effect)
  try {
    const sql = await run(SqlClient.SqlClient)
    const t0 = performance.now()
    const { findings, org } = await run(seed(run, sql))
    console.log(
      `PostgreSQL: ${REPOSITORIES} repositories x ${BRANCHES.length} branches x ${FINDINGS} findings = ${findings} findings (seeded in ${
        ((performance.now() - t0) / 1000).toFixed(1)
      } s)`
    )
    const caller = { orgId: org.id, actor: { kind: "system", name: "bench" }, correlationId: "bench" }
    const ours = () => run(Workflows.Reports.getComplianceReport(caller))
    const report = await ours()
    const peer = await run(naive(org.id, new Date(report.generatedAt)))
    if (!isDeepStrictEqual(report.organization, peer)) {
      console.log("  the two computations disagree:", JSON.stringify({ ours: report.organization, naive: peer }))
      process.exitCode = 1
      return
    }
    console.log(`  organization: ${JSON.stringify(report.organization)}`)
    await timed(3, ours) // warm-up
    const oursMs = await timed(runs, ours)
    const naiveMs = await timed(naiveRuns, () => run(naive(org.id, new Date())))
    const fmt = (xs) => `p50 ${percentile(xs, 50).toFixed(1)} ms  p99 ${percentile(xs, 99).toFixed(1)} ms`
    console.log(`  GET /reports/compliance (workflow)   ours  ${fmt(oursMs)}  (${runs} runs)`)
    console.log(`  naive peer (load every finding)      naive ${fmt(naiveMs)}  (${naiveRuns} runs)`)
    // where our time goes: each bulk read alone
    const { ReportStore } = await import("@image-policy/core")
    const reports = await run(ReportStore)
    const groups = await run(Effect.flatMap(PolicyStore, (p) => p.policyGroups.all(org.id)))
    const repositories = await run(reports.repositories(org.id))
    const plan = Reports.plan({ groups, repositories })
    const step = async (label, f) => console.log(`    ${label.padEnd(34)} p50 ${percentile(await timed(10, f), 50).toFixed(1)} ms`)
    await step("repositories + assignments", () => run(reports.repositories(org.id)))
    await step("plan (core)", () => Reports.plan({ groups, repositories }))
    await step("findingCounts (SQL GROUP BY)", () => run(reports.findingCounts(org.id, plan.branches)))
    await step("branchStates", () => run(reports.branchStates(org.id, plan.branches)))
    await step("liveSnoozes", () => run(reports.liveSnoozes(org.id)))
    console.log(
      `  ratio (naive / ours)                 p50 ${(percentile(naiveMs, 50) / percentile(oursMs, 50)).toFixed(1)}x  p99 ${
        (percentile(naiveMs, 99) / percentile(oursMs, 99)).toFixed(1)
      }x`
    )
  } finally {
    await runtime.dispose()
    if (process.env.BENCH_REPORTS_KEEP_DB === undefined) await db.drop()
    else console.log(`  kept ${db.url}`)
  }
}
