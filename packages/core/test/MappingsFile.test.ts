import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as MappingsFile from "../src/MappingsFile.js"
import { mappingsFileEntries } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

const phaseId = Id.make("phase", new Uint8Array(16).fill(1)) as Id.PhaseId
const ids = (seed: number) =>
  Array.from({ length: 50 }, (_, i) => Id.make("mapping", new Uint8Array(16).fill(seed).fill(i, 0, 1)) as Id.MappingId)
const now = new Date("2026-01-01T00:00:00.000Z")
const errorPaths = (text: string) => {
  const result = MappingsFile.decodeMappingsFile(text)
  return Result.isFailure(result) ? result.failure.errors.map((e) => e.path) : []
}

const file = mappingsFileEntries

describe("MappingsFile", () => {
  it("rejects unknown fields, bad references and duplicates, naming each JSON path", () => {
    assert.deepStrictEqual(errorPaths("{"), ["(root)"])
    assert.includeMembers(errorPaths(`{"mapping": []}`), ["mappings", "mapping"])
    assert.include(errorPaths(`{"mappings": [], "extra": 1}`), "extra")
    assert.deepStrictEqual(errorPaths(`{"mappings": [{"fromImage": "a:1", "toImage": "a:2", "fromimage": "x"}]}`), [
      "mappings[0].fromimage"
    ])
    assert.deepStrictEqual(errorPaths(`{"mappings": [{"fromImage": "a:1", "toImage": "a:*"}]}`), ["mappings[0].toImage"])
    assert.deepStrictEqual(errorPaths(`{"mappings": [{"fromImage": "a:1", "toImage": 3}]}`), ["mappings[0].toImage"])
    assert.deepStrictEqual(
      errorPaths(
        `{"mappings": [{"fromImage": "nginx:1", "toImage": "nginx:2"}, {"fromImage": "docker.io/library/nginx:1", "toImage": "nginx:3"}]}`
      ),
      ["mappings[1]"]
    )
  })

  prop("decode(encode(file)) equals the file", [file], ([f]) => {
    assert.deepStrictEqual(Result.getOrThrow(MappingsFile.decodeMappingsFile(MappingsFile.encodeMappingsFile(f))), f)
  })

  prop(
    "a file read on its own is one group and phase with every entry in file order, ids naming entries, active as a sync without cooldown makes it",
    [file, fc.integer({ min: Date.parse("2025-01-01T00:00:00Z"), max: Date.parse("2028-01-01T00:00:00Z") })],
    ([f, at]) => {
      const when = new Date(at)
      const policy = MappingsFile.filePolicy(f, when)
      assert.deepStrictEqual(MappingsFile.filePolicy(f, when), policy, "the same file, the same policy")
      assert.strictEqual(policy.length, 1)
      const [{ group, phases, published }] = policy as [(typeof policy)[number]]
      assert.strictEqual(group.id, MappingsFile.fileGroupId)
      assert.deepStrictEqual(phases, [{ id: MappingsFile.filePhaseId, position: 0 }])
      assert.deepStrictEqual(published.map((m) => m.id), f.map((_, i) => `map_entry_${i}`))
      published.forEach((m, i) => {
        const entry = f[i]!
        assert.strictEqual(m.fromImage, entry.fromImage)
        assert.strictEqual(m.toImage, entry.toImage)
        assert.strictEqual(m.phaseId, MappingsFile.filePhaseId)
        assert.strictEqual(m.activeFrom, MappingsFile.activationTime({ now: when, cooldownSeconds: 0, ...entry }))
        assert.isAtLeast(Date.parse(m.activeFrom), at)
      })
    }
  )

  prop("a file saved with a byte-order mark decodes as the same file", [file], ([f]) => {
    const text = MappingsFile.encodeMappingsFile(f)
    assert.deepStrictEqual(MappingsFile.decodeMappingsFile(`\uFEFF${text}`), MappingsFile.decodeMappingsFile(text))
    // only one, and only at the start: anything else is not JSON
    assert.isTrue(Result.isFailure(MappingsFile.decodeMappingsFile(`\uFEFF\uFEFF${text}`)))
  })

  prop(
    "unknown fields are always rejected with their path",
    [file.filter((f) => f.length > 0), fc.stringMatching(/^[a-z]{3,8}X$/)],
    ([f, field]) => {
      const bad = f.map((e, i) => (i === f.length - 1 ? { ...e, [field]: 1 } : e))
      assert.include(errorPaths(JSON.stringify({ mappings: bad })), `mappings[${f.length - 1}].${field}`)
    }
  )

  prop(
    "the file is the complete source: after a sync the phase holds exactly the file; re-applying changes nothing",
    [file, file],
    ([v1, v2]) => {
      const first = MappingsFile.applySync({ phaseId, current: [], file: v1, now, cooldownSeconds: 60, ids: ids(1) })
      const later = new Date("2026-01-02T00:00:00.000Z")
      const second = MappingsFile.applySync({ phaseId, current: first.published, file: v2, now: later, cooldownSeconds: 60, ids: ids(2) })
      assert.deepStrictEqual(second.published.map((m) => m.fromImage), v2.map((m) => m.fromImage))
      for (const removed of second.diff.removed) assert.isFalse(second.published.some((m) => m.id === removed.id))
      const again = MappingsFile.applySync({
        phaseId,
        current: second.published,
        file: v2,
        now: new Date("2026-01-03T00:00:00Z"),
        cooldownSeconds: 60,
        ids: ids(3)
      })
      assert.deepStrictEqual(again.published, second.published)
      assert.deepStrictEqual([again.diff.added.length, again.diff.changed.length, again.diff.removed.length], [0, 0, 0])
    }
  )

  it("activation honours cooldown, applicableDateTime and bypassCooldown", () => {
    const at = (o: Partial<Parameters<typeof MappingsFile.activationTime>[0]>) =>
      MappingsFile.activationTime({ now, cooldownSeconds: 3600, ...o })
    assert.strictEqual(at({}), "2026-01-01T01:00:00.000Z")
    assert.strictEqual(at({ bypassCooldown: true }), "2026-01-01T00:00:00.000Z")
    assert.strictEqual(at({ applicableDateTime: "2026-02-01T00:00:00Z" }), "2026-02-01T00:00:00.000Z")
    assert.strictEqual(at({ applicableDateTime: "2026-02-01T00:00:00Z", bypassCooldown: true }), "2026-02-01T00:00:00.000Z")
    assert.strictEqual(at({ applicableDateTime: "2025-01-01T00:00:00Z" }), "2026-01-01T01:00:00.000Z")
  })
})

describe("MappingsFile.isStalePush", () => {
  prop("a push is stale exactly when it says it happened more than maxPushAgeMs ago", [
    fc.option(fc.integer({ min: 0, max: 2_000_000_000_000 }), { nil: undefined }),
    fc.integer({ min: 0, max: 2_000_000_000_000 })
  ], ([pushedAt, now]) => {
    assert.strictEqual(MappingsFile.isStalePush(pushedAt, now), pushedAt !== undefined && now - pushedAt > MappingsFile.maxPushAgeMs)
    if (pushedAt !== undefined) {
      assert.isFalse(MappingsFile.isStalePush(pushedAt, pushedAt + MappingsFile.maxPushAgeMs))
      assert.isTrue(MappingsFile.isStalePush(pushedAt, pushedAt + MappingsFile.maxPushAgeMs + 1))
    }
  })
})
