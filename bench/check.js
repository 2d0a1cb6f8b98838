// `image-policy check` benchmark (issue 18: "`check` on a tree of 5,000 files finishes in under
// 5 s"): the synthetic monorepo of bench/scan.js (5,000 files: Dockerfiles, Compose files,
// Kubernetes manifests, GitHub and GitLab workflows, and files the scanner does not read) written to
// a temporary directory, with its published mappings as one `service-mappings.json` (every valid
// entry, one per key, at most `MappingsFile.maxEntries`), checked by the BUILT command as a user
// runs it (`node packages/host/bin/image-policy.js check --mappings ... --format json`): walking,
// reading, scanning, deciding through the index, the JSON report, process start included. The peer
// does the same work in this process the naive way: every finding resolved with the linear
// `Resolution.resolve` (every mapping read for every finding) instead of one index, over a sample
// bounded by BENCH_CHECK_NAIVE_MS (default 5000) and extrapolated to every finding. Before any
// figure, the command's decisions must equal the linear resolver's on that sample. Build first
// (`npm run build`). BENCH_CHECK_ROUNDS (default 3): runs of the command, the median is shown.
// The bin starts `check` from its own entry (dist/check/main.js); the same runs through
// dist/cli.js, which loads the whole host first (how `check` started before that entry), and the
// start-up of each (`check --help` against `--version` of the whole host) show what the entry saves.
// Prints figures and the ratio; asserts nothing.
import { Decision, Mapping, MappingsFile, Resolution, Scanner } from "@image-policy/core"
import * as Result from "effect/Result"
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { files, groups } from "./scan.js"

const naiveBudgetMs = Number(process.env.BENCH_CHECK_NAIVE_MS ?? 5000)
const rounds = Number(process.env.BENCH_CHECK_ROUNDS ?? 3)
const bin = fileURLToPath(new URL("../packages/host/bin/image-policy.js", import.meta.url))
const wholeHost = fileURLToPath(new URL("../packages/host/dist/cli.js", import.meta.url))

/**
 * CPU time (ms) of this process's finished children (Linux: `cutime` + `cstime` of /proc/self/stat,
 * in clock ticks of 10 ms): what the command cost, whatever else runs on the machine.
 */
const childrenCpuMs = () => {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").replace(/^.*\) /s, "").split(" ")
    // after the command name, field 3 is the state: cutime and cstime are fields 16 and 17
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return Number.NaN
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
const row = (label, value) => console.log(`  ${label.padEnd(52)} ${value}`)

/** The published mappings as one valid mappings file: entries the file format accepts, one per key. */
const mappingsFile = () => {
  const seen = new Set()
  const entries = []
  for (const { published } of groups) {
    for (const m of published) {
      const entry = {
        fromImage: m.fromImage,
        toImage: m.toImage,
        ...(m.platformScope ? { platformScope: m.platformScope } : {}),
        ...(m.order !== undefined ? { order: m.order } : {})
      }
      const key = Mapping.mappingKey(entry.fromImage, entry.platformScope)
      if (seen.has(key) || Result.isFailure(Mapping.validateMappingInput(entry, { source: "file" }))) continue
      if (entries.length === MappingsFile.maxEntries) break
      seen.add(key)
      entries.push(entry)
    }
  }
  return entries
}

export const main = async () => {
  console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const dir = mkdtempSync(join(tmpdir(), "image-policy-bench-check-"))
  try {
    const tree = join(dir, "repo")
    for (const f of files) {
      mkdirSync(dirname(join(tree, f.path)), { recursive: true })
      writeFileSync(join(tree, f.path), f.content)
    }
    const entries = mappingsFile()
    const mappingsPath = join(dir, "service-mappings.json")
    writeFileSync(mappingsPath, MappingsFile.encodeMappingsFile(entries))
    row("tree", `${files.length} files written; ${entries.length} mappings in the file`)

    // 1. the command, as a user runs it; then through the whole host's entry
    const timed = async (entry, args, options = {}) => {
      const cpu0 = childrenCpuMs()
      const t0 = performance.now()
      const { stdout } = await promisify(execFile)(process.execPath, [entry, ...args], { maxBuffer: 1 << 30, ...options })
      return { wallMs: performance.now() - t0, cpuMs: childrenCpuMs() - cpu0, stdout }
    }
    const checkArgs = ["check", "--mappings", mappingsPath, "--format", "json", "--fail-on", "none", "."]
    const runs = []
    const cpu = []
    let report
    for (let r = 0; r < rounds; r++) {
      const run = await timed(bin, checkArgs, { cwd: tree })
      runs.push(run.wallMs)
      cpu.push(run.cpuMs)
      report = JSON.parse(run.stdout)
    }
    const checkMs = median(runs)
    const checkCpuMs = median(cpu)
    const hostRuns = []
    for (let r = 0; r < rounds; r++) hostRuns.push(await timed(wholeHost, checkArgs, { cwd: tree }))
    const hostMs = median(hostRuns.map((r) => r.wallMs))
    const hostCpuMs = median(hostRuns.map((r) => r.cpuMs))
    // what starting the command costs before it reads a file (module loading), median of `rounds`
    const starts = async (entry, args) => {
      const all = []
      for (let r = 0; r < rounds; r++) all.push(await timed(entry, args))
      return { wallMs: median(all.map((r) => r.wallMs)), cpuMs: median(all.map((r) => r.cpuMs)) }
    }
    const start = await starts(bin, ["check", "--help"])
    const hostStart = await starts(bin, ["--version"])

    // 2. the peer: the same findings, each resolved by reading every mapping
    const now = new Date()
    const policy = MappingsFile.filePolicy(
      Result.getOrThrow(MappingsFile.decodeMappingsFile(MappingsFile.encodeMappingsFile(entries))),
      now
    )
    const c0 = performance.now()
    const scanned = Scanner.scanFiles(files)
    const scanMs = performance.now() - c0
    const asks = scanned.flatMap((f) => {
      const ask = Decision.requestOf(f)
      return ask === undefined ? [] : [{ finding: f, ask }]
    })
    const byPlace = new Map(report.findings.map((f) => [`${f.file}:${f.line}:${f.column}:${f.platform ?? ""}`, f]))
    const t0 = performance.now()
    let sampled = 0
    for (const { ask, finding } of asks) {
      const linear = Resolution.resolve({ policy, image: ask.image, platform: ask.platform, now })
      const winner = Result.isSuccess(linear) ? linear.success.resolved?.mapping.id ?? null : "invalid"
      const decided = byPlace.get(`${finding.file}:${finding.line}:${finding.column}:${finding.platform ?? ""}`)?.decision
      const got = decided?.invalid !== undefined ? "invalid" : decided?.resolution?.mappingId ?? null
      if (got !== winner) {
        console.log(`  check and the linear resolver differ for ${ask.image} (${ask.platform ?? "any platform"}): no figures`)
        return
      }
      sampled++
      if (performance.now() - t0 > naiveBudgetMs) break
    }
    const linearMs = performance.now() - t0
    const naiveMs = scanMs + (linearMs / sampled) * asks.length

    row("findings (decided / unresolved)", `${asks.length} / ${scanned.length - asks.length}; ${report.summary.outOfPolicy} out of policy`)
    row("check == linear resolver on the sample", `${sampled} findings agree`)
    row(`image-policy check, end to end (median of ${rounds})`, `${fmt(checkMs)} ms wall, ${fmt(checkCpuMs)} ms CPU (target < 5,000 ms)`)
    row("  every run (wall)", runs.map((ms) => `${fmt(ms)} ms`).join(", "))
    row("  of which starting the command (check --help)", `${fmt(start.wallMs)} ms wall, ${fmt(start.cpuMs)} ms CPU`)
    row("the same through dist/cli.js (whole host loaded)", `${fmt(hostMs)} ms wall, ${fmt(hostCpuMs)} ms CPU`)
    row("  of which starting the whole host (--version)", `${fmt(hostStart.wallMs)} ms wall, ${fmt(hostStart.cpuMs)} ms CPU`)
    row("ratio whole host / check entry, end to end", `${fmt(hostMs / checkMs)}x (wall), ${fmt(hostCpuMs / checkCpuMs)}x (CPU)`)
    row("peer: scan + linear resolve per finding", `${fmt(naiveMs)} ms (${sampled} of ${asks.length} resolved, extrapolated)`)
    row("ratio peer / check", `${fmt(naiveMs / checkMs)}x (wall), ${fmt(naiveMs / checkCpuMs)}x (the peer's wall over check's CPU)`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
