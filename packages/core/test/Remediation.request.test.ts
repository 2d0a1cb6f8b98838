/** The remediation request: its head branch, title and body, and the failure_kind of its .failed event. */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Remediation from "../src/Remediation.js"
import { VcsProviderError, VcsWriteRejected } from "../src/Vcs.js"
import { prop } from "./support/fcProp.js"
import { gid, pid } from "./support/remediation.js"

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
    fc.array(fc.constantFrom("a", "B", "1", ".", "/", "-", "_", "@", "{", ".lock", " ", "~", "..", "é"), { maxLength: 20 }).map((p) =>
      p.join("")
    )
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
    assert.include(
      body,
      `- \`Dockerfile:8\`: \`node:20\` -> \`node:20.11.1\` (group \`${gid}\`, phase \`${pid}\`, mapping \`${mappingId}\`): selected: exact match`
    )
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
    fc.array(
      fc.tuple(
        fc.string({ maxLength: 30 }),
        fc.integer({ min: 1, max: 99_999 }),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 60 })
      ),
      { maxLength: 30 }
    )
  ], ([rows]) => {
    const body = Remediation.body("main", rows.map(([file, line, from, to, reason]) => change(file, line, from, to, reason)))
    const items = body.split("\n").filter((l) => l.startsWith("- "))
    assert.strictEqual(items.length, rows.length)
    rows.forEach(([file, line], i) =>
      assert.include(items[i]!.replace(/`/g, ""), `${file.replace(/[\r\n]+/g, " ").replace(/`/g, "")}:${line}`)
    )
  })

  it("a very long list stops under the providers' size limit and says how many are left out", () => {
    const many = Array.from(
      { length: 2000 },
      (_, i) => change(`services/service-${i}/deploy/kubernetes/deployment.yaml`, i + 1, "node:20", "node:20.11.1", "selected: exact match")
    )
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
