// Scan benchmark (issue "Branch scans and remediation pull requests", first part; the resolver index
// of issue 18): a synthetic monorepo of 5,000 files (Dockerfiles, Compose files, Kubernetes
// manifests, GitHub and GitLab workflows, and files the scanner does not read) scanned with
// `Scanner.scanFiles`, and every finding resolved against 10,000 published mappings (exact,
// repository and pattern fromImages over a few hundred repositories) with `ResolutionIndex.decide`
// (the winner and its reason, what scans, reports and remediation use) and `ResolutionIndex.explain`
// (the whole `considered` list), beside two peers in the same run: the linear `Resolution.resolve`
// that reads every mapping for each image, and the bucketed resolver the index replaced
// (bench/_scan-peers/bucketed.js). Before any figure is printed every resolver must give the linear
// one's answers on its sample, and `decide` the bucketed one's winner on every finding. Imports the
// BUILT core (packages/core/dist/index.js): `npm run build -w @image-policy/core` after changes.
// BENCH_SCAN_SEED (default 1) changes the generated repository; BENCH_SCAN_NAIVE_MS (default 5000)
// bounds the time spent on the naive resolver; BENCH_SCAN_ROUNDS (default 7) is how many times
// each resolver goes over every finding, the resolvers taking turns. Rates are given per wall second
// and per CPU second of this process (`process.cpuUsage`): on a busy machine the second is the one
// to compare. Prints figures and ratios; asserts nothing.
import { Resolution, ResolutionIndex, Scanner } from "@image-policy/core"
import * as Result from "effect/Result"
import { loadavg } from "node:os"
import { isDeepStrictEqual } from "node:util"
import * as Bucketed from "./_scan-peers/bucketed.js"
import { publishedMappings, repositories, seeded, tags } from "./_scan-peers/policy.js"

const seed = Number(process.env.BENCH_SCAN_SEED ?? 1)
const naiveBudgetMs = Number(process.env.BENCH_SCAN_NAIVE_MS ?? 5000)
const rounds = Number(process.env.BENCH_SCAN_ROUNDS ?? 7)
const FILES = 5_000
const MAPPINGS = 10_000

// deterministic randomness: the same seed gives the same repository, references and policy
const { digest, idBytes, image, int, pick, rng } = seeded(seed)
const platformOf = () => (rng() < 0.15 ? pick(["linux/amd64", "linux/arm64"]) : undefined)

// 5,000 files ------------------------------------------------------------------------------------------
const dockerfile = () => {
  const lines = ["# syntax=docker/dockerfile:1", `ARG BASE=${pick(repositories)}`, `ARG TAG=${pick(tags)}`, ""]
  const stages = 1 + int(3)
  for (let s = 0; s < stages; s++) {
    const platform = platformOf()
    const from = s === 0 && rng() < 0.4 ? "${BASE}:${TAG}" : image()
    lines.push(
      `FROM ${platform ? `--platform=${platform} ` : ""}${from} AS stage${s}`,
      "WORKDIR /app",
      "COPY . .",
      "RUN make build \\",
      "    && make test",
      ""
    )
  }
  lines.push("FROM stage0", "COPY --from=stage1 /app/out /out", "CMD [\"/out/app\"]")
  return lines.join("\n")
}
const compose = () => {
  const lines = ["x-defaults: &defaults", "  restart: unless-stopped", `  image: ${image()}`, "", "services:"]
  const n = 3 + int(6)
  for (let i = 0; i < n; i++) {
    lines.push(`  svc${i}:`)
    if (i === 0) lines.push("    <<: *defaults")
    else lines.push(`    image: ${rng() < 0.3 ? `"${image()}"` : image()}`)
    const platform = platformOf()
    if (platform) lines.push(`    platform: ${platform}`)
    lines.push("    environment:", "      LOG_LEVEL: info", "    ports:", `      - "${8000 + i}:8080"`)
  }
  return lines.join("\n")
}
const kubernetes = () => {
  const docs = []
  for (let d = 1 + int(4); d > 0; d--) {
    const lines = [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      `  name: app-${int(1000)}`,
      "  labels: { app: x }",
      "spec:",
      "  replicas: 2",
      "  template:",
      "    spec:"
    ]
    const platform = platformOf()
    if (platform) lines.push("      nodeSelector:", `        kubernetes.io/arch: ${platform.split("/")[1]}`)
    if (rng() < 0.3) lines.push("      initContainers:", "        - name: init", `          image: ${image()}`)
    lines.push("      containers:")
    for (let c = 1 + int(3); c > 0; c--) {
      lines.push(
        `        - name: c${c}`,
        `          image: "${image()}"`,
        "          ports:",
        "            - containerPort: 8080",
        "          resources:",
        "            limits: { cpu: 500m, memory: 256Mi }"
      )
    }
    docs.push(lines.join("\n"))
  }
  return `# Source: chart/templates/deployment.yaml\n${docs.join("\n---\n")}\n`
}
const workflow = () =>
  [
    "name: CI",
    "on: [push]",
    "jobs:",
    "  test:",
    "    runs-on: ubuntu-latest",
    `    container: ${image()}`,
    "    services:",
    "      db:",
    `        image: ${image()}`,
    "    steps:",
    "      - uses: actions/checkout@v4",
    `      - uses: docker://${image()}`,
    "      - run: make test"
  ].join("\n")
const gitlab = () =>
  [
    `image: ${image()}`,
    "services:",
    `  - ${image()}`,
    "stages: [test]",
    "test:",
    `  image: { name: ${image()} }`,
    "  script:",
    "    - make test"
  ].join("\n")
const other = (i) =>
  pick([
    () => ({ path: `src/module${i}/index.ts`, content: `export const image = "nginx:1"\n${"// code\n".repeat(40)}` }),
    () => ({ path: `docs/page${i}.md`, content: `# Page\n\nFROM node:20 is prose here.\n${"text\n".repeat(30)}` }),
    () => ({ path: `config/app${i}.json`, content: JSON.stringify({ image: "redis:7", replicas: 3 }) }),
    () => ({
      path: `charts/c${i}/values.yaml`,
      content: `image:\n  repository: ${pick(repositories)}\n  tag: "${pick(tags)}"\nreplicas: 2\n`
    })
  ])()

/** The synthetic monorepo (also the tree bench/check.js writes to disk). */
export const files = []
for (let i = 0; i < FILES; i++) {
  const k = rng()
  if (k < 0.2) files.push({ path: `services/s${i}/Dockerfile`, content: dockerfile() })
  else if (k < 0.3) files.push({ path: `services/s${i}/docker-compose.yml`, content: compose() })
  else if (k < 0.5) files.push({ path: `deploy/k8s/app${i}.yaml`, content: kubernetes() })
  else if (k < 0.56) files.push({ path: `.github/workflows/wf${i}.yml`, content: workflow() })
  else if (k < 0.6) files.push({ path: `ci/job${i}.gitlab-ci.yml`, content: gitlab() })
  else files.push(other(i))
}
const bytes = files.reduce((n, f) => n + f.content.length, 0)

// 10,000 published mappings in 3 groups of 2 phases (the same generator as the decision API's bench;
// bench/check.js writes them as a mappings file)
const published = publishedMappings({ count: MAPPINGS, rng, int, pick, digest, idBytes })
const counts = published.counts
export const groups = published.groups
const now = new Date("2026-06-01T00:00:00Z")

// measuring -------------------------------------------------------------------------------------------
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const timeIt = (f) => {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const value = f()
  const cpu = process.cpuUsage(c0)
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, value }
}
const rate = (n, ms) => (n / ms) * 1000
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
const row = (label, value) => console.log(`  ${label.padEnd(52)} ${value}`)
const winnerOf = (r) => (Result.isSuccess(r) ? r.success?.resolved?.mapping.id ?? null : `failure ${r.failure._tag}`)

export const main = async () => {
  console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  console.log(
    `synthetic monorepo (seed ${seed}): ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB; ` +
      `${MAPPINGS} mappings (${counts.exact} exact, ${counts.repository} repository, ${counts.pattern} pattern) over ${repositories.length} repositories`
  )

  // 1. scanning: one warm-up pass, then the median of 5
  Scanner.scanFiles(files)
  const scans = Array.from({ length: 5 }, () => timeIt(() => Scanner.scanFiles(files)))
  const findings = scans[0].value
  const scanMs = median(scans.map((s) => s.ms))
  const scanCpuMs = median(scans.map((s) => s.cpuMs))
  const byKind = {}
  for (const f of findings) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1
  const resolvable = findings.filter((f) => f.normalized !== undefined)
  const distinct = new Set(resolvable.map((f) => `${f.normalized} ${f.platform ?? ""}`)).size
  row(
    "files scanned (median of 5)",
    `${fmt(scanMs)} ms  ->  ${fmt(rate(files.length, scanMs))} files/s, ${fmt(bytes / 1e6 / (scanMs / 1000))} MB/s`
  )
  row("  per CPU second", `${fmt(rate(files.length, scanCpuMs))} files/s`)
  row("findings", `${findings.length} (${Object.entries(byKind).map(([k, n]) => `${k} ${n}`).join(", ")})`)
  row("  resolvable (normalized)", `${resolvable.length}, ${distinct} distinct image and platform pairs`)

  // 2. the indexes, built once per policy (median of 5)
  const builds = Array.from({ length: 5 }, () => timeIt(() => ResolutionIndex.build(groups)))
  const index = builds[0].value
  const buildMs = median(builds.map((b) => b.ms))
  const bucketedBuild = timeIt(() => Bucketed.compile(groups))
  const bucketed = bucketedBuild.value
  row("build the index of 10,000 mappings (median of 5)", `${fmt(buildMs)} ms (the bucketed peer's: ${fmt(bucketedBuild.ms)} ms)`)

  // 3. the linear resolver on a time-bounded sample: every other resolver must agree on it, and
  // `decide` with the bucketed peer on every finding
  const queries = resolvable.map((f) => ({ image: f.image, platform: f.platform, now }))
  const sample = []
  const naive = timeIt(() => {
    const t0 = performance.now()
    for (const q of queries) {
      sample.push([q, Resolution.resolve({ ...q, policy: groups })])
      if (performance.now() - t0 > naiveBudgetMs) break
    }
  })
  let matched = 0
  for (const [q, expected] of sample) {
    const explained = ResolutionIndex.explain(index, q)
    const old = Bucketed.resolveCompiled(bucketed, q)
    const decided = ResolutionIndex.decide(index, q)
    const reason = Result.isSuccess(expected) ? expected.success.considered.find((c) => c.reason.startsWith("selected"))?.reason : undefined
    if (
      !isDeepStrictEqual(explained, expected) || !isDeepStrictEqual(old, expected) || winnerOf(decided) !== winnerOf(expected) ||
      (Result.isSuccess(decided) && decided.success !== null && decided.success.reason !== reason)
    ) {
      console.log(`  a resolver differs from the linear one for ${q.image} (${q.platform ?? "any platform"}): no figures`)
      return
    }
    if (Result.isSuccess(expected) && expected.success.resolved !== null) matched++
  }
  for (const q of queries) {
    if (winnerOf(ResolutionIndex.decide(index, q)) !== winnerOf(Bucketed.resolveCompiled(bucketed, q))) {
      console.log(`  decide and the bucketed resolver differ for ${q.image} (${q.platform ?? "any platform"}): no figures`)
      return
    }
  }
  row("every resolver == resolve on the linear sample", `${sample.length} images agree; ${matched} resolved to a mapping`)
  row("decide == bucketed peer's winner on every finding", `${queries.length} findings agree`)

  // 4. every resolvable finding through each resolver: a warm-up each, then rounds taking turns
  const over = (resolveOne) => () => {
    let hits = 0
    for (const q of queries) {
      const r = resolveOne(q)
      if (Result.isSuccess(r) && r.success !== null && r.success.resolved !== null) hits++
    }
    return hits
  }
  const contenders = [
    ["ResolutionIndex.decide", over((q) => ResolutionIndex.decide(index, q))],
    ["ResolutionIndex.explain", over((q) => ResolutionIndex.explain(index, q))],
    ["bucketed peer (resolveCompiled before)", over((q) => Bucketed.resolveCompiled(bucketed, q))]
  ].map(([label, run]) => ({ label, run, runs: [] }))
  for (const c of contenders) c.run()
  for (let r = 0; r < rounds; r++) for (const c of contenders) c.runs.push(timeIt(c.run))
  const naiveRate = rate(sample.length, naive.ms)
  const naiveCpuRate = rate(sample.length, naive.cpuMs)
  for (const c of contenders) {
    c.ms = median(c.runs.map((x) => x.ms))
    c.cpuMs = median(c.runs.map((x) => x.cpuMs))
    c.rate = rate(queries.length, c.ms)
    c.cpuRate = rate(queries.length, c.cpuMs)
    row(
      `${c.label} (median of ${rounds})`,
      `${fmt(c.ms)} ms  ->  ${fmt(c.rate)} resolutions/s (${c.runs[0].value} of ${queries.length} resolved)`
    )
    row("  per CPU second", `${fmt(c.cpuRate)} resolutions/s, ${fmt(1e6 / c.cpuRate)} us each`)
  }
  row(`resolve (linear), ${sample.length} findings`, `${fmt(naive.ms)} ms  ->  ${fmt(naiveRate)} resolutions/s`)
  row("  per CPU second", `${fmt(naiveCpuRate)} resolutions/s`)
  const [decide, explain, old] = contenders
  const ratio = (a, b) => `${fmt(a.rate / b.rate)}x (per CPU second ${fmt(a.cpuRate / b.cpuRate)}x)`
  const linear = { rate: naiveRate, cpuRate: naiveCpuRate }
  row("ratio decide / bucketed peer", ratio(decide, old))
  row("ratio decide / linear", ratio(decide, linear))
  row("ratio explain / bucketed peer", ratio(explain, old))
  row("ratio bucketed peer / linear", ratio(old, linear))
  row(
    "every finding, linear (extrapolated)",
    `${fmt(queries.length / naiveRate)} s vs ${fmt((buildMs + decide.ms) / 1000)} s build + decide`
  )
  row("scan + build + decide, end to end", `${fmt(scanMs + buildMs + decide.ms)} ms for ${files.length} files`)
}
