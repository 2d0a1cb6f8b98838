import { assert, describe, it } from "@effect/vitest"
import { prop } from "./support/fcProp.js"
import { Schema } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Mapping from "../src/Mapping.js"
import type * as PolicyGroup from "../src/PolicyGroup.js"
import { VcsProviderError, VcsWriteRejected } from "../src/Vcs.js"
import * as Remediation from "../src/Remediation.js"
import * as Resolution from "../src/Resolution.js"
import * as Scanner from "../src/Scanner.js"
import type * as SnoozeRequest from "../src/SnoozeRequest.js"

const gid = Id.make("policyGroup", new Uint8Array(16).fill(1)) as Id.PolicyGroupId
const pid = Id.make("phase", new Uint8Array(16).fill(1)) as Id.PhaseId
const repositoryId = Id.make("repository", new Uint8Array(16).fill(1)) as Id.RepositoryId
let n = 0
const mapping = (fromImage: string, toImage: string, extra: Partial<PolicyGroup.PublishedMapping> = {}): PolicyGroup.PublishedMapping => ({
  id: Id.make("mapping", new Uint8Array(16).fill(++n % 250)) as Id.MappingId,
  key: Mapping.mappingKey(fromImage, extra.platformScope),
  fromImage,
  toImage,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  phaseId: pid,
  activeFrom: "2026-01-01T00:00:00.000Z",
  ...extra
})
const compile = (published: ReadonlyArray<PolicyGroup.PublishedMapping>) =>
  Resolution.compile([{ group: { id: gid, name: "Base images" }, phases: [{ id: pid, position: 0 }], published }])
const now = new Date("2026-06-01T00:00:00Z")
const snooze = (fromImage: string, status: SnoozeRequest.SnoozeStatus, until = "2026-07-01T00:00:00.000Z"): SnoozeRequest.SnoozeRequest => ({
  id: Id.make("snoozeRequest", new Uint8Array(16).fill(++n % 250)) as Id.SnoozeRequestId,
  repositoryId,
  fromImage,
  reason: "vendor certification pending",
  until,
  status,
  createdAt: "2026-05-01T00:00:00.000Z",
  reviewedAt: null,
  reviewComment: null
})

/** Plans and rewrites one file: the new content and what changed. */
const remediate = (
  path: string,
  content: string,
  published: ReadonlyArray<PolicyGroup.PublishedMapping>,
  snoozes: ReadonlyArray<SnoozeRequest.SnoozeRequest> = []
) => {
  const changes = Remediation.plan({ findings: Scanner.scanFile(path, content), policy: compile(published), snoozes, now })
  return { changes, ...Remediation.rewrite(content, changes) }
}

const policy = [
  mapping("node:20", "node:20.11.1"),
  mapping("alpine:*", "alpine:3.20"),
  mapping("alpine:3.19", "alpine:3.19.1", { platformScope: "linux/arm64" }),
  mapping("ghcr.io/acme/api:2.0.1", "ghcr.io/acme/api:2.0.2"),
  mapping("ghcr.io/acme/migrate:1.4", "ghcr.io/acme/migrate:1.5"),
  mapping("redis:7", "redis:7.4"),
  mapping("postgres:16", "docker.io/library/postgres:16"), // the same image, spelt out: nothing to change
  mapping("busybox:1.36", "busybox:1.37", { activeFrom: "2026-09-01T00:00:00.000Z" }) // still in cooldown
]

describe("Remediation on real-world files: only the reference text changes", () => {
  it("multi-stage Dockerfile with ARGs, CRLF line endings and comments", () => {
    const before = [
      "# syntax=docker/dockerfile:1.7",
      "ARG NODE_VERSION=20",
      "ARG BASE=alpine:3.18",
      "",
      "FROM node:${NODE_VERSION} AS deps   # built from an ARG: not rewritten",
      "RUN npm ci",
      "",
      "FROM node:20 AS build  # pinned",
      "COPY --from=deps /app /app",
      "",
      "FROM --platform=linux/arm64 \\",
      "     alpine:3.19 AS arm",
      "FROM ${BASE}",
      "FROM busybox:1.36",
      "FROM postgres:16 AS db",
      "FROM alpine:3.19"
    ].join("\r\n") + "\r\n"
    const r = remediate("Dockerfile", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "8:6 node:20 -> node:20.11.1",
      "12:6 alpine:3.19 -> alpine:3.19.1",
      "16:6 alpine:3.19 -> alpine:3.20"
    ])
    assert.deepStrictEqual(r.skipped, [])
    assert.strictEqual(
      r.content,
      before.replace("FROM node:20 AS build", "FROM node:20.11.1 AS build")
        .replace("     alpine:3.19 AS arm", "     alpine:3.19.1 AS arm")
        .replace(/FROM alpine:3.19\r\n$/, "FROM alpine:3.20\r\n")
    )
    assert.strictEqual(r.content.split("\r\n").length, before.split("\r\n").length)
  })

  it("compose file with anchors and merge keys: one place, one change, quotes and comments kept", () => {
    const before = [
      "x-worker: &worker",
      "  image: \"redis:7\"   # shared by both workers",
      "  restart: unless-stopped",
      "",
      "services:",
      "  worker-a:",
      "    <<: *worker",
      "  worker-b:",
      "    <<: *worker",
      "  db:",
      "    image: 'postgres:16'",
      "  cache: { image: redis:7, ports: [\"6379:6379\"] }",
      "  app:",
      "    image: ${APP_IMAGE:-node:20}",
      ""
    ].join("\n")
    const r = remediate("docker-compose.yml", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "2:11 redis:7 -> redis:7.4",
      "12:19 redis:7 -> redis:7.4"
    ])
    assert.strictEqual(
      r.content,
      before.replace("image: \"redis:7\"   #", "image: \"redis:7.4\"   #").replace("{ image: redis:7,", "{ image: redis:7.4,")
    )
  })

  it("Kubernetes Deployment with initContainers on arm64 nodes: platform-specific mappings apply", () => {
    const before = [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      "  name: api",
      "spec:",
      "  template:",
      "    spec:",
      "      nodeSelector:",
      "        kubernetes.io/arch: arm64",
      "      initContainers:",
      "        - name: migrate",
      "          image: ghcr.io/acme/migrate:1.4",
      "        - name: wait",
      "          image: alpine:3.19 # waits for the database",
      "      containers:",
      "        - name: api",
      "          image: \"ghcr.io/acme/api:2.0.1\"",
      "        - name: escaped",
      "          image: \"ghcr.io/acme/api:2.0\\x2e1\"",
      ""
    ].join("\n")
    const r = remediate("deploy/api.yaml", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "12:18 ghcr.io/acme/migrate:1.4 -> ghcr.io/acme/migrate:1.5",
      "14:18 alpine:3.19 -> alpine:3.19.1",
      "17:19 ghcr.io/acme/api:2.0.1 -> ghcr.io/acme/api:2.0.2"
    ])
    assert.strictEqual(
      r.content,
      before.replace("migrate:1.4", "migrate:1.5").replace("alpine:3.19 #", "alpine:3.19.1 #").replace("api:2.0.1\"", "api:2.0.2\"")
    )
  })

  it("GitHub workflow: job container, service containers and docker:// steps", () => {
    const before = [
      "\uFEFFname: CI",
      "on: [push]",
      "jobs:",
      "  test:",
      "    runs-on: ubuntu-latest",
      "    container: node:20",
      "    services:",
      "      cache:",
      "        image: redis:7",
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - uses: 'docker://alpine:3.18'",
      "        with: { args: echo hi }",
      ""
    ].join("\n")
    const r = remediate(".github/workflows/ci.yml", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "6:16 node:20 -> node:20.11.1",
      "9:16 redis:7 -> redis:7.4",
      "12:25 alpine:3.18 -> alpine:3.20"
    ])
    assert.strictEqual(
      r.content,
      before.replace("container: node:20", "container: node:20.11.1").replace("image: redis:7", "image: redis:7.4").replace("docker://alpine:3.18", "docker://alpine:3.20")
    )
    assert.isTrue(r.content.startsWith("\uFEFF"), "the byte-order mark stays")
  })
})

describe("Remediation.plan", () => {
  const compose = "services:\n  web:\n    image: nginx:1.25\n  api:\n    image: node:20\n"
  const findings = Scanner.scanFile("compose.yaml", compose)
  const published = [mapping("nginx:*", "nginx:1.27"), mapping("node:20", "node:22")]
  const planned = (snoozes: ReadonlyArray<SnoozeRequest.SnoozeRequest>) =>
    Remediation.plan({ findings, policy: compile(published), snoozes, now }).map((c) => c.to)

  it("each change carries the winning mapping's group, phase, id and reason", () => {
    const [change] = Remediation.plan({ findings, policy: compile(published), snoozes: [], now })
    assert.deepStrictEqual(change, {
      file: "compose.yaml",
      line: 3,
      column: 12,
      from: "nginx:1.25",
      to: "nginx:1.27",
      policyGroupId: gid,
      phaseId: pid,
      mappingId: published[0]!.id,
      reason: "selected: pattern match"
    })
    assert.isTrue(Schema.is(Remediation.RemediationChange)(change))
  })

  it("an approved, unexpired snooze of the image or of the mapping's fromImage suppresses the change", () => {
    assert.deepStrictEqual(planned([]), ["nginx:1.27", "node:22"])
    assert.deepStrictEqual(planned([snooze("docker.io/library/nginx:1.25", "approved")]), ["node:22"])
    assert.deepStrictEqual(planned([snooze("nginx:*", "approved")]), ["node:22"])
    assert.deepStrictEqual(planned([snooze("node:20", "approved")]), ["nginx:1.27"])
  })

  it("pending, rejected and expired snoozes, or an approved one past its until, suppress nothing", () => {
    for (const s of [snooze("nginx:1.25", "pending"), snooze("nginx:1.25", "rejected"), snooze("nginx:1.25", "expired"), snooze("nginx:1.25", "approved", "2026-06-01T00:00:00.000Z")]) {
      assert.deepStrictEqual(planned([s]), ["nginx:1.27", "node:22"], s.status)
    }
  })

  it("a place read for two platforms that want different images is left alone", () => {
    const file = [
      "x-pod: &pod",
      "  containers:",
      "    - name: app",
      "      image: alpine:3.19",
      "apiVersion: v1",
      "kind: List",
      "items:",
      "  - apiVersion: v1",
      "    kind: Pod",
      "    spec:",
      "      <<: *pod",
      "      nodeSelector: { kubernetes.io/arch: arm64 }",
      "  - apiVersion: v1",
      "    kind: Pod",
      "    spec: *pod"
    ].join("\n")
    const readings = Scanner.scanFile("pods.yaml", file)
    assert.strictEqual(readings.length, 2, "one place, read for arm64 and for no platform")
    const split = Remediation.plan({ findings: readings, policy: compile(policy), snoozes: [], now })
    assert.deepStrictEqual(split, [])
    const same = Remediation.plan({ findings: readings, policy: compile([mapping("alpine:3.19", "alpine:3.21")]), snoozes: [], now })
    assert.deepStrictEqual(same.map((c) => `${c.line}:${c.column} ${c.to}`), ["4:14 alpine:3.21"])
  })
})

describe("Remediation.rewrite", () => {
  const change = (line: number, column: number, from: string, to: string): Remediation.RemediationChange => ({
    file: "f",
    line,
    column,
    from,
    to,
    policyGroupId: gid,
    phaseId: pid,
    mappingId: Id.make("mapping", new Uint8Array(16)) as Id.MappingId,
    reason: "selected: exact match"
  })

  it("a change whose text moved since the scan is skipped and reported; the others apply", () => {
    const content = "FROM node:20\nFROM alpine:3.19\n"
    const moved = change(1, 6, "node:18", "node:22")
    const good = change(2, 6, "alpine:3.19", "alpine:3.20")
    const outside = change(9, 1, "x", "y")
    const r = Remediation.rewrite(content, [moved, good, outside])
    assert.strictEqual(r.content, "FROM node:20\nFROM alpine:3.20\n")
    assert.deepStrictEqual(r.applied, [good])
    assert.deepStrictEqual(r.skipped.length, 2)
  })

  it("several changes on one line keep the text between them; overlapping ones are skipped", () => {
    const content = "      containers: [{ image: a:1 }, { image: b:1 }]\r"
    const r = Remediation.rewrite(content, [change(1, 45, "b:1", "b:22"), change(1, 29, "a:1", "a:333"), change(1, 29, "a:1", "c:1")])
    assert.strictEqual(r.content, "      containers: [{ image: a:333 }, { image: b:22 }]\r")
    assert.strictEqual(r.skipped.length, 1)
  })

  it("never reaches past the end of its line", () => {
    const r = Remediation.rewrite("image: a\nb:1\n", [change(1, 8, "a\nb", "x")])
    assert.strictEqual(r.content, "image: a\nb:1\n")
    assert.strictEqual(r.skipped.length, 1)
  })

  // content built from lines and line endings: every line's offset is known by construction
  const lineText = fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, "·"))
  const document = fc.tuple(
    fc.array(fc.tuple(lineText, fc.constantFrom("\n", "\r\n", "\r")), { minLength: 1, maxLength: 12 }),
    fc.boolean()
  ).map(([rows, bom]) => {
    const lines = rows.map(([t], i) => (i === 0 && bom ? `\uFEFF${t}` : t))
    // "\r" then an empty line ending in "\n" would read as one "\r\n": keep the endings unambiguous
    const endings = rows.map(([, e], i) => (e === "\r" && lines[i + 1] === "" ? "\r\n" : e))
    return { lines, endings, content: lines.map((l, i) => l + endings[i]).join("") }
  })
  const withChanges = document.chain((doc) =>
    fc.tuple(
      fc.constant(doc),
      fc.tuple(...doc.lines.map((l) =>
        fc.option(fc.tuple(fc.nat(Math.max(0, l.length - 1)), fc.integer({ min: 1, max: 10 }), fc.string({ minLength: 1, maxLength: 12 })), { nil: undefined })
          .map((o) => o === undefined || l.length === 0 ? undefined : { start: o[0], length: Math.min(o[1], l.length - o[0]), to: o[2] })
      ))
    ))

  prop("with no changes the content is returned unchanged", [document], ([doc]) => {
    assert.strictEqual(Remediation.rewrite(doc.content, []).content, doc.content)
  })

  prop("keeps every character outside the replaced ranges (line endings, byte-order mark included)", [withChanges], ([[doc, picks]]) => {
    const changes: Array<Remediation.RemediationChange> = []
    let expected = ""
    doc.lines.forEach((l, i) => {
      const p = picks[i]
      if (p === undefined) expected += l
      else {
        expected += l.slice(0, p.start) + p.to + l.slice(p.start + p.length)
        changes.push(change(i + 1, p.start + 1, l.slice(p.start, p.start + p.length), p.to))
      }
      expected += doc.endings[i]
    })
    const r = Remediation.rewrite(doc.content, [...changes].reverse())
    assert.strictEqual(r.content, expected)
    assert.strictEqual(r.applied.length, changes.length)
    assert.deepStrictEqual(r.skipped, [])
  })

  prop("a change whose text is not at its place changes nothing", [withChanges], ([[doc, picks]]) => {
    const stale = doc.lines.flatMap((l, i) => {
      const p = picks[i]
      return p === undefined ? [] : [change(i + 1, p.start + 1, `${l.slice(p.start, p.start + p.length)}\u0000`, p.to)]
    })
    const r = Remediation.rewrite(doc.content, stale)
    assert.strictEqual(r.content, doc.content)
    assert.strictEqual(r.skipped.length, stale.length)
  })

  // files of random image references: after the rewrite, the scanner finds each `to` where `from` was
  const images = ["node:20", "node:18-alpine", "alpine:3.19", "redis:7", "nginx:1.25", "ghcr.io/acme/api:2.0.1", "postgres:16"]
  const targets = ["node:22", "alpine:3.20", "redis:7.4", "nginx:1.27", "ghcr.io/acme/api:2.1.0", "docker.io/library/postgres:16", "registry.example/mirror/node:20"]
  const mappings = fc.array(fc.tuple(fc.constantFrom(...images, "node:*", "*/acme/*"), fc.constantFrom(...targets)), { maxLength: 8 })
    .map((rows) => rows.map(([from, to]) => mapping(from, to)))
  const sample = fc.tuple(
    fc.array(fc.tuple(fc.constantFrom(...images), fc.constantFrom("", "'", "\"")), { minLength: 1, maxLength: 8 }),
    fc.constantFrom("\n", "\r\n"),
    fc.constantFrom("dockerfile", "compose")
  ).map(([refs, eol, kind]) =>
    kind === "dockerfile"
      ? { path: "Dockerfile", content: refs.map(([r], i) => `# stage ${i}${eol}FROM ${r} AS s${i}`).join(eol) + eol }
      : {
        path: "compose.yaml",
        content: `services:${eol}${refs.map(([r, q], i) => `  s${i}:   # service ${i}${eol}    image: ${q}${r}${q}`).join(eol)}${eol}`
      }
  )

  prop("rewrite then scan finds each change's `to` at its line, and every other finding unchanged", [sample, mappings], ([file, ms]) => {
    const before = Scanner.scanFile(file.path, file.content)
    const changes = Remediation.plan({ findings: before, policy: compile(ms), snoozes: [], now })
    const r = Remediation.rewrite(file.content, changes)
    assert.deepStrictEqual(r.applied, changes)
    const after = Scanner.scanFile(file.path, r.content)
    assert.strictEqual(after.length, before.length)
    before.forEach((f, i) => {
      const c = changes.find((x) => x.line === f.line && x.column === f.column)
      assert.strictEqual(after[i]!.line, f.line)
      assert.strictEqual(after[i]!.column, f.column)
      assert.strictEqual(after[i]!.reference, c === undefined ? f.reference : c.to)
    })
  })

  const snoozes = fc.array(
    fc.tuple(fc.constantFrom(...images, ...targets, "node:*", "docker.io/library/redis:7"), fc.constantFrom<SnoozeRequest.SnoozeStatus>("pending", "approved", "rejected", "expired"), fc.boolean()),
    { maxLength: 5 }
  ).map((rows) => rows.map(([from, status, future]) => snooze(from, status, future ? "2026-12-01T00:00:00.000Z" : "2026-05-01T00:00:00.000Z")))

  prop("never a change for an image (or mapping) an active snooze names; without snoozes those changes exist", [sample, mappings, snoozes], ([file, ms, ss]) => {
    const findings = Scanner.scanFile(file.path, file.content)
    const changes = Remediation.plan({ findings, policy: compile(ms), snoozes: ss, now })
    const active = new Set(ss.filter((s) => s.status === "approved" && Date.parse(s.until) > now.getTime()).map((s) => Mapping.normalizedFrom(s.fromImage)))
    const byId = new Map(ms.map((m) => [m.id, m]))
    for (const c of changes) {
      assert.isFalse(active.has(Mapping.normalizedFrom(c.from)), `snoozed image ${c.from}`)
      assert.isFalse(active.has(Mapping.normalizedFrom(byId.get(c.mappingId)!.fromImage)), `snoozed mapping ${c.mappingId}`)
    }
    const unsnoozed = Remediation.plan({ findings, policy: compile(ms), snoozes: [], now })
    assert.isAtLeast(unsnoozed.length, changes.length)
    for (const c of changes) assert.deepInclude(unsnoozed, c)
  })
  prop("snoozing every image of a file, or every mapping, leaves nothing to change", [sample, mappings], ([file, ms]) => {
    const findings = Scanner.scanFile(file.path, file.content)
    const byImage = findings.flatMap((f) => (f.image === undefined ? [] : [snooze(f.image, "approved")]))
    assert.deepStrictEqual(Remediation.plan({ findings, policy: compile(ms), snoozes: byImage, now }), [])
    const byMapping = ms.map((m) => snooze(m.fromImage, "approved"))
    assert.deepStrictEqual(Remediation.plan({ findings, policy: compile(ms), snoozes: byMapping, now }), [])
  })
})


/** `git check-ref-format` rules (for a branch name under refs/heads/), and printable ASCII only (every provider takes it). */
const isValidRef = (name: string) =>
  name.length > 0 && !name.endsWith("/") && !name.endsWith(".") && !name.includes("..") && !name.includes("@{") &&
  !name.includes("//") && name !== "@" && /^[!-~]+$/.test(name) && !/[~^:?*[\\]/.test(name) &&
  name.split("/").every((c) => c.length > 0 && !c.startsWith(".") && !c.endsWith(".lock"))

describe("Remediation.headBranchFor, title, body", () => {
  it("a plain branch name is kept; anything else is cleaned and told apart by a hash", () => {
    assert.strictEqual(Remediation.headBranchFor("main"), "image-policy/remediate/main")
    assert.strictEqual(Remediation.headBranchFor("release/2.x"), "image-policy/remediate/release/2.x")
    assert.match(Remediation.headBranchFor("feature/my branch"), /^image-policy\/remediate\/feature\/my-branch-[0-9a-z]+$/)
    assert.match(Remediation.headBranchFor("../../refs/x.lock"), /^image-policy\/remediate\/refs\/x-lock-[0-9a-z]+$/)
    assert.match(Remediation.headBranchFor("日本"), /^image-policy\/remediate\/--[0-9a-z]+$/)
    assert.match(Remediation.headBranchFor(""), /^image-policy\/remediate\/[0-9a-z]+$/)
    assert.match(Remediation.headBranchFor("///"), /^image-policy\/remediate\/[0-9a-z]+$/)
    assert.notStrictEqual(Remediation.headBranchFor("a b"), Remediation.headBranchFor("a:b"))
    assert.isAtMost(Remediation.headBranchFor("x".repeat(300)).length, 23 + 100 + 1 + 11)
  })

  const names = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: "binary", maxLength: 20 }),
    fc.array(fc.constantFrom("a", "B", "1", ".", "/", "-", "_", "@", "{", ".lock", " ", "~", "..", "é"), { maxLength: 20 }).map((p) => p.join(""))
  )

  prop("always a valid git ref under image-policy/remediate/, the same for the same branch", [names], ([name]) => {
    const head = Remediation.headBranchFor(name)
    assert.isTrue(head.startsWith("image-policy/remediate/"))
    assert.isTrue(isValidRef(head), head)
    assert.strictEqual(Remediation.headBranchFor(name), head)
  })

  prop("different branches get different head branches", [names, names], ([a, b]) => {
    fc.pre(a !== b)
    assert.notStrictEqual(Remediation.headBranchFor(a), Remediation.headBranchFor(b))
  })

  it("the title names the base branch", () => {
    assert.strictEqual(Remediation.title("main"), "Update container images on main")
  })

  const change = (file: string, line: number, from: string, to: string, reason: string): Remediation.RemediationChange => ({
    file,
    line,
    column: 6,
    from,
    to,
    policyGroupId: gid,
    phaseId: pid,
    mappingId: Id.make("mapping", new Uint8Array(16).fill(3)) as Id.MappingId,
    reason
  })

  it("the body lists every change: file:line, from -> to, group, phase, mapping and reason", () => {
    const body = Remediation.body("main", [
      change("Dockerfile", 8, "node:20", "node:20.11.1", "selected: exact match"),
      change("k8s/app.yaml", 12, "alpine:3.19", "alpine:3.20", "selected: pattern match")
    ])
    const mappingId = Id.make("mapping", new Uint8Array(16).fill(3))
    assert.include(body, "2 container image references on `main`")
    assert.include(body, `- \`Dockerfile:8\`: \`node:20\` -> \`node:20.11.1\` (group \`${gid}\`, phase \`${pid}\`, mapping \`${mappingId}\`): selected: exact match`)
    assert.include(body, "- `k8s/app.yaml:12`: `alpine:3.19` -> `alpine:3.20`")
    assert.include(body, "selected: pattern match")
  })

  it("backticks, Markdown and line breaks in file names or reasons cannot break the list", () => {
    const body = Remediation.body("main", [change("we`ird/[x](y).yml", 1, "a:1", "a:2", "see <b>*this*</b>\n# heading")])
    assert.include(body, "``we`ird/[x](y).yml:1``")
    assert.include(body, "see \\<b\\>\\*this\\*\\</b\\> \\# heading")
    assert.strictEqual(body.trimEnd().split("\n").filter((l) => l.startsWith("- ")).length, 1)
  })

  prop("every change is one list item naming its file:line, whatever text the change holds", [
    fc.array(fc.tuple(fc.string({ maxLength: 30 }), fc.integer({ min: 1, max: 99_999 }), fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), fc.string({ maxLength: 60 })), { maxLength: 30 })
  ], ([rows]) => {
    const body = Remediation.body("main", rows.map(([file, line, from, to, reason]) => change(file, line, from, to, reason)))
    const items = body.split("\n").filter((l) => l.startsWith("- "))
    assert.strictEqual(items.length, rows.length)
    rows.forEach(([file, line], i) => assert.include(items[i]!.replace(/`/g, ""), `${file.replace(/[\r\n]+/g, " ").replace(/`/g, "")}:${line}`))
  })

  it("a very long list stops under the providers' size limit and says how many are left out", () => {
    const many = Array.from({ length: 2000 }, (_, i) => change(`services/service-${i}/deploy/kubernetes/deployment.yaml`, i + 1, "node:20", "node:20.11.1", "selected: exact match"))
    const body = Remediation.body("main", many)
    assert.isBelow(body.length, 65_536)
    assert.match(body, /- \.\.\. and \d+ more \(see the diff\)\n$/)
  })
})

describe("Remediation.failureKind (the failure_kind of the .failed event)", () => {
  it("maps provider errors and refused writes to the catalog's codes", () => {
    const cases: ReadonlyArray<readonly [VcsProviderError | VcsWriteRejected, Remediation.RemediationFailure]> = [
      [new VcsProviderError({ reason: "rate-limited", retryAfterSeconds: 30 }), "rate-limited"],
      [new VcsProviderError({ reason: "unauthorized" }), "permission-denied"],
      [new VcsProviderError({ reason: "not-found" }), "provider-unavailable"],
      [new VcsProviderError({ reason: "unavailable" }), "provider-unavailable"],
      [new VcsProviderError({ reason: "not-configured" }), "provider-unavailable"],
      [new VcsWriteRejected({ reason: "forbidden", status: 403 }), "permission-denied"],
      [new VcsWriteRejected({ reason: "conflict", status: 409 }), "conflict"],
      [new VcsWriteRejected({ reason: "invalid", status: 422 }), "provider-unavailable"]
    ]
    for (const [error, kind] of cases) assert.strictEqual(Remediation.failureKind(error), kind, `${error._tag} ${error.reason}`)
  })
})
