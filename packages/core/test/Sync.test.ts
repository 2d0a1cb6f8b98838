/**
 * The rules of syncing an external phase (MappingsFile.decideSync, the push rules) and the
 * PolicyGroup helpers the sync workflow uses, stated as the laws users rely on.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as MappingsFile from "../src/MappingsFile.js"
import * as PolicyGroup from "../src/PolicyGroup.js"
import { branchName, commitSha, mappingsFileEntries } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A

const validFile = mappingsFileEntries.map((mappings) => JSON.stringify({ mappings }))

/** Files that fail validation: not JSON, unknown fields, wrong types, non-exact targets, duplicates. */
const invalidFile = fc.oneof(
  fc.constantFrom("", "{", "[]", "null", "{\"mappings\": {}}", "{\"mapping\": []}"),
  validFile.map((text) => text.replace(/^\{/, "{\"extra\": 1, ")),
  fc.constantFrom(
    "{\"mappings\": [{\"fromImage\": \"a:1\", \"toImage\": \"a:*\"}]}",
    "{\"mappings\": [{\"fromImage\": \"a:1\", \"toImage\": 3}]}",
    "{\"mappings\": [{\"fromImage\": \"a:1\", \"toImage\": \"a:2\", \"fromimage\": \"x\"}]}",
    "{\"mappings\": [{\"fromImage\": \"nginx:1\", \"toImage\": \"nginx:2\"}, {\"fromImage\": \"docker.io/library/nginx:1\", \"toImage\": \"nginx:3\"}]}",
    "{\"mappings\": [{\"fromImage\": \"a:1\", \"toImage\": \"a:2\", \"order\": -1, \"platformScope\": \"nowhere\"}]}"
  )
)

const version = commitSha
const read: fc.Arbitrary<MappingsFile.SourceRead> = fc.oneof(
  fc.tuple(fc.oneof(validFile, invalidFile), version).map(([content, v]) => ({ _tag: "Found" as const, content, version: v })),
  fc.constant({ _tag: "Missing" as const }),
  fc.constantFrom("repository-or-branch-not-found", "connection-inactive", "connection-missing").map((problem) => ({
    _tag: "Unreachable" as const,
    problem: problem as MappingsFile.SourceProblem
  }))
)
/** A directory name that must never appear in an error text. */
const hiddenDir = "internal-dir-7c1"
const source = fc.record({
  path: fc.constantFrom("service-mappings.json", `${hiddenDir}/service-mappings.json`, `/${hiddenDir}/nested/policy.json`),
  lastVersion: fc.option(version, { nil: null }),
  lastError: fc.option(
    fc.constantFrom("an older problem", "service-mappings.json was not found on the branch; the published mappings were kept"),
    { nil: null }
  )
})

/** The state a decision leaves on the phase (what the workflow records). */
const after = (s: { path: string; lastVersion: string | null; lastError: string | null }, d: MappingsFile.SyncDecision) =>
  d._tag === "Unchanged" ? s : d._tag === "Rejected"
    ? { ...s, lastVersion: d.version, lastError: d.lastError }
    : { ...s, lastVersion: d.version, lastError: null }

describe("decideSync", () => {
  prop("the same read processed twice changes nothing the second time", [source, read], ([s, r]) => {
    const first = MappingsFile.decideSync(s, r)
    assert.strictEqual(MappingsFile.decideSync(after(s, first), r)._tag, "Unchanged")
  })

  prop(
    "a file version equal to lastVersion is never processed again, whatever its content",
    [source, fc.oneof(validFile, invalidFile)],
    ([s, content]) => {
      const v = "f".repeat(40)
      assert.deepStrictEqual(MappingsFile.decideSync({ ...s, lastVersion: v }, { _tag: "Found", content, version: v }), {
        _tag: "Unchanged",
        version: v
      })
    }
  )

  prop(
    "an invalid file is never accepted; its error is short and names the file name only",
    [source, invalidFile, version],
    ([s, content, v]) => {
      const d = MappingsFile.decideSync(s, { _tag: "Found", content, version: v })
      if (d._tag === "Unchanged") return
      assert.strictEqual(d._tag, "Rejected")
      if (d._tag !== "Rejected") return
      assert.strictEqual(d.version, v)
      assert.isAtMost(d.lastError.length, MappingsFile.maxErrorLength)
      assert.isTrue(d.lastError.startsWith(MappingsFile.fileNameOf(s.path)))
      assert.notInclude(d.lastError, hiddenDir)
    }
  )

  prop("a valid new version is accepted as exactly the decoded file", [source, validFile, version], ([s, content, v]) => {
    fc.pre(v !== s.lastVersion)
    const d = MappingsFile.decideSync(s, { _tag: "Found", content, version: v })
    assert.deepStrictEqual(d, { _tag: "Accepted", version: v, mappings: Result.getOrThrow(MappingsFile.decodeMappingsFile(content)) })
  })

  prop("after a missing file or an unknown branch, the file's return is always processed, even with its old content", [
    source,
    fc.constantFrom<MappingsFile.SourceRead>({ _tag: "Missing" }, { _tag: "Unreachable", problem: "repository-or-branch-not-found" }),
    fc.oneof(validFile, invalidFile)
  ], ([s, gone, content]) => {
    const v = "a".repeat(40)
    const applied = after(s, MappingsFile.decideSync({ ...s, lastVersion: null, lastError: null }, { _tag: "Found", content, version: v }))
    const missing = after(applied, MappingsFile.decideSync(applied, gone))
    assert.isNotNull(missing.lastError)
    assert.isNull(missing.lastVersion)
    assert.notStrictEqual(MappingsFile.decideSync(missing, { _tag: "Found", content, version: v })._tag, "Unchanged")
  })

  it("error texts for the phase's own problems", () => {
    assert.strictEqual(
      MappingsFile.sourceProblemError("config/service-mappings.json", "missing"),
      "service-mappings.json was not found on the branch; the published mappings were kept"
    )
    const d = MappingsFile.decideSync(
      { path: "service-mappings.json", lastVersion: null, lastError: null },
      { _tag: "Found", content: "{\"mappings\": [{\"fromImage\": \"a:1\", \"toImage\": \"a:2\", \"fromimage\": \"x\"}]}", version: "v1" }
    )
    assert.strictEqual(d._tag, "Rejected")
    assert.include(d._tag === "Rejected" ? d.lastError : "", "mappings[0].fromimage")
  })
})

describe("pushes", () => {
  const phaseSource = { repositoryFullName: "Acme/Policy", branch: "main", path: "config/service-mappings.json" }
  const otherPath = fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}\.(json|md|ts)$/).filter((p) => p !== phaseSource.path)
  const branch = branchName

  prop(
    "a push to another branch, or a tag, never concerns the phase",
    [branch, fc.option(fc.array(otherPath), { nil: null })],
    ([b, paths]) => {
      fc.pre(b !== "main")
      for (const ref of [`refs/heads/${b}`, "refs/tags/main", "main", "refs/heads/"]) {
        assert.isFalse(MappingsFile.pushTouches(phaseSource, { repositoryFullName: "acme/policy", ref, changedPaths: paths }))
        assert.isFalse(
          MappingsFile.pushTouches(phaseSource, {
            repositoryFullName: "acme/policy",
            ref,
            changedPaths: [...(paths ?? []), phaseSource.path]
          })
        )
      }
    }
  )

  prop("a push to the branch concerns the phase exactly when its file changed, or when the provider could not list every file", [
    fc.array(otherPath, { maxLength: 6 }),
    fc.boolean(),
    fc.constantFrom("", "/", "./")
  ], ([paths, includes, prefix]) => {
    const changedPaths = includes ? [...paths, `${prefix}${phaseSource.path}`] : paths
    assert.strictEqual(
      MappingsFile.pushTouches(phaseSource, { repositoryFullName: "acme/policy", ref: "refs/heads/main", changedPaths }),
      includes
    )
    assert.isTrue(MappingsFile.pushTouches(phaseSource, { repositoryFullName: "ACME/POLICY", ref: "refs/heads/main", changedPaths: null }))
    assert.isFalse(MappingsFile.pushTouches(phaseSource, { repositoryFullName: "acme/other", ref: "refs/heads/main", changedPaths: null }))
  })

  it("phasesTouchedByPush picks the external phases of that connection only", () => {
    const mine = id<Id.VcsConnectionId>("vcsConnection", 1)
    const theirs = id<Id.VcsConnectionId>("vcsConnection", 2)
    const external = (n: number, vcsConnectionId: Id.VcsConnectionId, path = "service-mappings.json"): PolicyGroup.Phase => ({
      id: id("phase", n),
      name: `E${n}`,
      sourceType: "external",
      position: n,
      external: {
        vcsConnectionId,
        repositoryFullName: "acme/policy",
        branch: "main",
        path,
        pollIntervalSeconds: 60,
        lastSyncedAt: null,
        lastError: null,
        lastVersion: null
      }
    })
    const group: PolicyGroup.PolicyGroup = {
      id: id("policyGroup", 9),
      name: "G",
      applyToAllRepos: false,
      notificationRouting: { kind: "inherit" },
      cooldownSeconds: null,
      phases: [
        { id: id("phase", 10), name: "I", sourceType: "internal", position: 0 },
        external(11, mine),
        external(12, theirs),
        external(13, mine, "other.json")
      ]
    }
    const push = { repositoryFullName: "acme/policy", ref: "refs/heads/main", changedPaths: ["service-mappings.json"] }
    assert.deepStrictEqual(MappingsFile.phasesTouchedByPush([group], mine, push), [{
      policyGroupId: group.id,
      phaseId: id<Id.PhaseId>("phase", 11)
    }])
    assert.deepStrictEqual(MappingsFile.phasesTouchedByPush([group], mine, { ...push, changedPaths: null }).map((t) => t.phaseId), [
      id("phase", 11),
      id("phase", 13)
    ])
  })
})

describe("PolicyGroup helpers of the sync", () => {
  const group = (cooldownSeconds: number | null): PolicyGroup.PolicyGroup => ({
    id: id("policyGroup", 1),
    name: "G",
    applyToAllRepos: false,
    notificationRouting: { kind: "inherit" },
    cooldownSeconds,
    phases: [
      { id: id("phase", 1), name: "I", sourceType: "internal", position: 0 },
      {
        id: id("phase", 2),
        name: "E",
        sourceType: "external",
        position: 1,
        external: {
          vcsConnectionId: id("vcsConnection", 1),
          repositoryFullName: "a/b",
          branch: "main",
          path: "f.json",
          pollIntervalSeconds: 60,
          lastSyncedAt: null,
          lastError: null,
          lastVersion: null
        }
      }
    ]
  })

  prop("the group's cooldown wins over the organization's; null means the organization's", [
    fc.option(fc.nat(100_000), { nil: null }),
    fc.nat(100_000)
  ], ([own, org]) => {
    assert.strictEqual(PolicyGroup.cooldownSecondsOf(group(own), org), own ?? org)
  })

  it("only an external phase can be synced", () => {
    const g = group(null)
    assert.isTrue(Result.isSuccess(PolicyGroup.ensureExternalPhase(g, id("phase", 2))))
    const internal = PolicyGroup.ensureExternalPhase(g, id("phase", 1))
    assert.isTrue(Result.isFailure(internal) && internal.failure._tag === "PhaseNotExternal")
    const unknown = PolicyGroup.ensureExternalPhase(g, "ph_unknown")
    assert.isTrue(Result.isFailure(unknown) && unknown.failure._tag === "PhaseNotFound")
  })
})
