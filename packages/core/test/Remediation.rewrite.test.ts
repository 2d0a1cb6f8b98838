/** Remediation.rewrite: only the planned reference text changes, every other byte is kept. */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Decision from "../src/Decision.js"
import * as Id from "../src/Id.js"
import * as Mapping from "../src/Mapping.js"
import * as Remediation from "../src/Remediation.js"
import * as Scanner from "../src/Scanner.js"
import type * as SnoozeRequest from "../src/SnoozeRequest.js"
import { prop } from "./support/fcProp.js"
import { compile, gid, mapping, now, pid, snooze } from "./support/remediation.js"

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
        fc.option(
          fc.tuple(fc.nat(Math.max(0, l.length - 1)), fc.integer({ min: 1, max: 10 }), fc.string({ minLength: 1, maxLength: 12 })),
          { nil: undefined }
        )
          .map((o) => o === undefined || l.length === 0 ? undefined : { start: o[0], length: Math.min(o[1], l.length - o[0]), to: o[2] })
      ))
    )
  )

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
  const targets = [
    "node:22",
    "alpine:3.20",
    "redis:7.4",
    "nginx:1.27",
    "ghcr.io/acme/api:2.1.0",
    "docker.io/library/postgres:16",
    "registry.example/mirror/node:20"
  ]
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
    fc.tuple(
      fc.constantFrom(...images, ...targets, "node:*", "docker.io/library/redis:7"),
      fc.constantFrom<SnoozeRequest.SnoozeStatus>("pending", "approved", "rejected", "expired"),
      fc.boolean()
    ),
    { maxLength: 5 }
  ).map((rows) =>
    rows.map(([from, status, future]) => snooze(from, status, future ? "2026-12-01T00:00:00.000Z" : "2026-05-01T00:00:00.000Z"))
  )

  prop(
    "never a change for an image (or mapping) an active snooze names; without snoozes those changes exist",
    [sample, mappings, snoozes],
    ([file, ms, ss]) => {
      const findings = Scanner.scanFile(file.path, file.content)
      const changes = Remediation.plan({ findings, policy: compile(ms), snoozes: ss, now })
      const active = new Set(
        ss.filter((s) => s.status === "approved" && Date.parse(s.until) > now.getTime()).map((s) => Mapping.normalizedFrom(s.fromImage))
      )
      const byId = new Map(ms.map((m) => [m.id, m]))
      for (const c of changes) {
        assert.isFalse(active.has(Mapping.normalizedFrom(c.from)), `snoozed image ${c.from}`)
        assert.isFalse(active.has(Mapping.normalizedFrom(byId.get(c.mappingId)!.fromImage)), `snoozed mapping ${c.mappingId}`)
      }
      const unsnoozed = Remediation.plan({ findings, policy: compile(ms), snoozes: [], now })
      assert.isAtLeast(unsnoozed.length, changes.length)
      for (const c of changes) assert.deepInclude(unsnoozed, c)
    }
  )
  prop("snoozing every image of a file, or every mapping, leaves nothing to change", [sample, mappings], ([file, ms]) => {
    const findings = Scanner.scanFile(file.path, file.content)
    const byImage = findings.flatMap((f) => (f.image === undefined ? [] : [snooze(f.image, "approved")]))
    assert.deepStrictEqual(Remediation.plan({ findings, policy: compile(ms), snoozes: byImage, now }), [])
    const byMapping = ms.map((m) => snooze(m.fromImage, "approved"))
    assert.deepStrictEqual(Remediation.plan({ findings, policy: compile(ms), snoozes: byMapping, now }), [])
  })

  // a server's decisions arrive as JSON: the same findings decided there feed the same rule
  const overTheWire = Schema.decodeUnknownSync(Schema.fromJsonString(Decision.Decision))
  const encode = Schema.encodeSync(Schema.fromJsonString(Decision.Decision))

  prop(
    "the changes of decisions that travelled as JSON (a server's, `check`'s) are exactly plan's",
    [sample, mappings, snoozes],
    ([file, ms, ss]) => {
      const findings = Scanner.scanFile(file.path, file.content)
      const index = compile(ms)
      const active = Decision.activeSnoozes(ss, now)
      const decided = findings.map((finding) => {
        const request = Decision.requestOf(finding)
        return { finding, decision: request === undefined ? undefined : overTheWire(encode(Decision.decide(index, active, request, now))) }
      })
      assert.deepStrictEqual(Remediation.changesOf(decided), Remediation.plan({ findings, policy: index, snoozes: ss, now }))
    }
  )

  prop(
    "changeOf: a change exactly when the reference is the literal image and its decision is out of policy, to the decision's toImage",
    [sample, mappings, snoozes],
    ([file, ms, ss]) => {
      const index = compile(ms)
      const active = Decision.activeSnoozes(ss, now)
      for (const finding of Scanner.scanFile(file.path, file.content)) {
        const request = Decision.requestOf(finding)
        assert.strictEqual(request === undefined, finding.image === undefined)
        const decision = request === undefined ? undefined : Decision.decide(index, active, request, now)
        const change = Remediation.changeOf(finding, decision)
        const expected = decision !== undefined && finding.reference === finding.image && Decision.isOutOfPolicy(decision)
        assert.strictEqual(change !== undefined, expected)
        if (change !== undefined) {
          assert.strictEqual(change.to, decision!.resolution!.toImage)
          assert.strictEqual(change.from, finding.reference)
          assert.strictEqual(change.mappingId, decision!.resolution!.mappingId)
        }
        // a decision on another image is never applied to this finding
        if (decision !== undefined) assert.isUndefined(Remediation.changeOf(finding, { ...decision, image: `${decision.image} ` }))
      }
    }
  )
})
