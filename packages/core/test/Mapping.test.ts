import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Mapping from "../src/Mapping.js"
import { prop } from "./support/fcProp.js"

const ctx = (n: number, now = "2026-01-01T00:00:00.000Z") => ({ id: Id.make("mapping", new Uint8Array(16).fill(n)) as Id.MappingId, now })
const paths = (r: Result.Result<unknown, Mapping.InvalidMapping>) => Result.isFailure(r) ? r.failure.errors.map((e) => e.path) : []

const input = fc.record({
  fromImage: fc.constantFrom("nginx:1", "docker.io/library/nginx:1", "redis", "ghcr.io/acme/api:2", "node:20"),
  toImage: fc.constantFrom("nginx:1.27", "redis:7.2.4", "ghcr.io/acme/api:2.1"),
  reason: fc.string({ maxLength: 20 }),
  platformScope: fc.constantFrom("linux/amd64", "linux/arm64", "linux/aarch64", "")
}, { requiredKeys: ["fromImage", "toImage"] }) // optional keys are absent, never undefined

describe("Mapping", () => {
  it("toImage must be exact; the API refuses patterns and file-only fields, naming each path", () => {
    const ok = Mapping.validateMappingInput({ fromImage: "nginx:1", toImage: "nginx:1.27" }, { source: "api" })
    assert.isTrue(Result.isSuccess(ok))
    assert.deepStrictEqual(paths(Mapping.validateMappingInput({ fromImage: "nginx:1", toImage: "nginx" }, { source: "api" })), ["toImage"])
    assert.deepStrictEqual(paths(Mapping.validateMappingInput({ fromImage: "nginx:1", toImage: "nginx:*" }, { source: "file" })), [
      "toImage"
    ])
    assert.deepStrictEqual(paths(Mapping.validateMappingInput({ fromImage: "nginx:*", toImage: "nginx:1" }, { source: "api" })), [
      "fromImage"
    ])
    assert.isTrue(Result.isSuccess(Mapping.validateMappingInput({ fromImage: "nginx:*", toImage: "nginx:1" }, { source: "file" })))
    assert.deepStrictEqual(
      paths(Mapping.validateMappingInput({ fromImage: "nginx:1", toImage: "nginx:2", order: 1, bypassCooldown: true }, { source: "api" })),
      ["bypassCooldown", "order"]
    )
    assert.deepStrictEqual(
      paths(
        Mapping.validateMappingInput({ fromImage: "NGINX", toImage: "x", platformScope: "mars/amd64" }, {
          source: "api",
          pathPrefix: "mappings[2]."
        })
      ),
      ["mappings[2].fromImage", "mappings[2].toImage", "mappings[2].platformScope"]
    )
  })

  prop("text no store can hold is refused at its field, also in a typed input that was never decoded", [
    fc.constantFrom("reason", "mappingContext"),
    fc.constantFrom("a\u0000b", "\ud800", "x\udc00y"),
    fc.constantFrom("api", "file")
  ], ([field, text, source]) => {
    const result = Mapping.validateMappingInput({ fromImage: "nginx:1", toImage: "nginx:1.27", [field]: text }, {
      source: source as "api" | "file"
    })
    assert.include(paths(result), field)
    assert.isTrue(
      Result.isSuccess(Mapping.validateMappingInput({ fromImage: "nginx:1", toImage: "nginx:1.27", reason: "🚀 ok" }, { source: "api" }))
    )
  })

  it("familiar and normalized spellings share a key; platform scope is part of it (absent == empty)", () => {
    assert.strictEqual(Mapping.mappingKey("nginx:1"), Mapping.mappingKey("docker.io/library/nginx:1"))
    assert.strictEqual(Mapping.mappingKey("nginx:1"), Mapping.mappingKey("index.docker.io/library/nginx:1", ""))
    assert.notStrictEqual(Mapping.mappingKey("nginx:1"), Mapping.mappingKey("nginx:1", "linux/amd64"))
    assert.strictEqual(Mapping.mappingKey("nginx:1", "linux/aarch64"), Mapping.mappingKey("nginx:1", "linux/arm64/v8"))
  })

  prop("posting the same mapping twice equals posting it once (spec rule 8)", [fc.array(input, { maxLength: 10 }), input], ([seed, m]) => {
    let drafts: ReadonlyArray<Mapping.Mapping> = []
    seed.forEach((s, i) => (drafts = Mapping.upsertDraft(drafts, s, ctx(i + 1)).mappings))
    const once = Mapping.upsertDraft(drafts, m, ctx(99, "2026-02-01T00:00:00.000Z"))
    const twice = Mapping.upsertDraft(once.mappings, m, ctx(100, "2026-03-01T00:00:00.000Z"))
    assert.deepStrictEqual(twice.mappings, once.mappings)
    assert.strictEqual(twice.outcome, "unchanged")
  })

  prop(
    "after any upserts there is exactly one draft per key, and updates keep id and createdAt",
    [fc.array(input, { maxLength: 30 })],
    ([inputs]) => {
      let drafts: ReadonlyArray<Mapping.Mapping> = []
      inputs.forEach((s, i) => {
        const before = drafts.find((d) => d.key === Mapping.mappingKey(s.fromImage, s.platformScope))
        const result = Mapping.upsertDraft(drafts, s, ctx(i + 1))
        if (before) {
          assert.strictEqual(result.mapping.id, before.id)
          assert.strictEqual(result.mapping.createdAt, before.createdAt)
        } else assert.strictEqual(result.outcome, "created")
        drafts = result.mappings
      })
      assert.strictEqual(new Set(drafts.map((d) => d.key)).size, drafts.length)
    }
  )

  prop("random inputs never throw", [fc.record({ fromImage: fc.string(), toImage: fc.string(), platformScope: fc.string() })], ([m]) => {
    const result = Mapping.validateMappingInput(m, { source: "file" })
    assert.isTrue(Result.isFailure(result) || Result.isSuccess(result))
    assert.isString(Mapping.mappingKey(m.fromImage, m.platformScope))
  })
})
