/**
 * `image-policy check` decides alike offline and against a server (issue 18; docs/cli.md#check):
 * for generated mappings files (exact references, tag-less repositories, wildcard patterns,
 * platform scopes, `order`, activation dates) and generated references as manifests write them
 * (registries, tags, digests, invalid ones, some longer than the decision API takes; platforms
 * canonical or not, invalid ones), the offline decider over the file (`Decider.offline`, what
 * `check --mappings` uses) and the server decider (`Decider.server`, what `check --server` uses)
 * over the same file synced into an external phase of a group that applies to every repository,
 * without cooldown, give the same decision on every reference: whether it is invalid and why, its
 * canonical forms, the mapping that applies (its key, target and reasons) and whether it is out of
 * policy. Ids are each side's own and not compared. One host for the whole property; each case
 * publishes its file with a sync.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { FixtureVcs } from "@image-policy/adapters"
import { Decision, Mapping, MappingsFile } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as fc from "fast-check"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Decider from "../src/check/Decider.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { applyToEveryRepository, publishMappingsFile } from "./support/mappingsPhase.js"

// what one case talks about --------------------------------------------------------------------

const digestA = `sha256:${"a".repeat(64)}`
const digestB = `sha256:${"b".repeat(64)}`

/**
 * The few registries and repositories of one case: a file and its references about the same images
 * make mappings meet references, and mappings meet each other (precedence, ties). Docker Hub is
 * written four ways (none, `docker.io/`, `index.docker.io/`, `library/`), which normalize alike.
 */
const vocabulary = fc.record({
  registries: fc.subarray(["", "docker.io/", "index.docker.io/", "ghcr.io/", "localhost:5000/"], { minLength: 1, maxLength: 2 }),
  repositories: fc.subarray(["nginx", "library/nginx", "node", "acme/api"], { minLength: 1, maxLength: 2 })
})
type Vocabulary = typeof vocabulary extends fc.Arbitrary<infer V> ? V : never

const tag = fc.constantFrom("1", "1.25", "20", "20-alpine")
const digest = fc.constantFrom(digestA, digestA, digestB)

const name = (v: Vocabulary) =>
  fc.tuple(fc.constantFrom(...v.registries), fc.constantFrom(...v.repositories)).map(([r, repo]) => `${r}${repo}`)

/** A reference with a tag, a digest or both: a mapping's target, or an exact fromImage. */
const exact = (v: Vocabulary) =>
  fc.tuple(name(v), tag, digest, fc.constantFrom("tag", "digest", "both")).map(([n, t, d, form]) =>
    form === "tag" ? `${n}:${t}` : form === "digest" ? `${n}@${d}` : `${n}:${t}@${d}`
  )

/** Any reference as a manifest writes it: with or without a tag and a digest. */
const reference = (v: Vocabulary) =>
  fc.tuple(name(v), fc.option(tag, { nil: undefined }), fc.option(digest, { nil: undefined })).map(([n, t, d]) =>
    `${n}${t === undefined ? "" : `:${t}`}${d === undefined ? "" : `@${d}`}`
  )

/** A wildcard pattern of a mappings file: a literal registry, globs in path segments and in the tag. */
const pattern = (v: Vocabulary) =>
  fc.tuple(
    fc.constantFrom(...v.registries),
    fc.array(fc.constantFrom(...v.repositories.flatMap((r) => r.split("/")), "*", "n*", "a*", "*i", "*x"), {
      minLength: 1,
      maxLength: 2
    }),
    fc.option(fc.constantFrom("*", "1*", "20*", "*-alpine", "1.25", "*2*"), { nil: undefined })
  ).map(([r, segments, t]) => `${r}${segments.join("/")}${t === undefined ? "" : `:${t}`}`)

/** What a manifest may say that is no image reference (the scanner passes it on as written). */
const invalidImage = fc.constantFrom(
  "Not A Reference!",
  "node:20:bad",
  "NGINX:1",
  "nginx@sha256:abc",
  "ghcr.io/acme/",
  ":1",
  `${"a".repeat(256)}:1`,
  // longer than the decision API takes: the server decider decides it as the core does
  `${"a".repeat(1100)}:1`
)

/** The platform of a finding: none, canonical, as people write it, or no platform at all. */
const platform = fc.constantFrom(
  undefined,
  undefined,
  undefined,
  "",
  "linux/amd64",
  "linux/arm64",
  "Linux/AMD64",
  "linux/aarch64",
  "linux/arm64/v8",
  "linux/arm",
  "not a platform!",
  "linux",
  `linux/${"x".repeat(120)}`
)

// mappings files -----------------------------------------------------------------------------------

const entry = (v: Vocabulary) =>
  fc.record({
    fromImage: fc.oneof({ arbitrary: exact(v), weight: 4 }, { arbitrary: name(v), weight: 2 }, { arbitrary: pattern(v), weight: 4 }),
    toImage: exact(v),
    reason: fc.option(fc.constantFrom("LTS pin", "the supported line", ""), { nil: undefined }),
    platformScope: fc.option(fc.constantFrom("", "linux/amd64", "linux/arm64", "linux/aarch64", "linux/arm/v7"), {
      nil: undefined,
      freq: 2
    }),
    order: fc.option(fc.constantFrom(0, 1), { nil: undefined, freq: 2 }),
    // past: active as soon as published; far future: not active while the test runs
    applicableDateTime: fc.option(fc.constantFrom("2020-01-01T00:00:00Z", "2099-01-01T00:00:00Z"), { nil: undefined, freq: 3 }),
    bypassCooldown: fc.option(fc.boolean(), { nil: undefined })
  }).map((e) => Object.fromEntries(Object.entries(e).filter(([, value]) => value !== undefined)) as Mapping.MappingInput)

/** The entries of a valid mappings file: the generated entries a sync accepts, the first of each key. */
const mappingsEntries = (v: Vocabulary) =>
  fc.array(entry(v), { minLength: 1, maxLength: 12, size: "max" }).map((entries) => {
    const kept: Array<Mapping.MappingInput> = []
    for (const e of entries) {
      if (Result.isSuccess(MappingsFile.decodeMappingsFile(MappingsFile.encodeMappingsFile([...kept, e])))) kept.push(e)
    }
    return kept
  })

/**
 * What findings ask about a file: references of its vocabulary, its own fromImages (a pattern with its
 * globs filled in, a tag given a digest too), its targets, and text that is no reference; each with
 * or without a platform.
 */
const asksFor = (v: Vocabulary, entries: ReadonlyArray<Mapping.MappingInput>) => {
  const own = fc.tuple(fc.constantFrom(...entries), fc.constantFrom("", "1", "ginx", "-alpine", "2"), fc.option(digest)).map(
    ([e, fill, d]) => {
      const image = e.fromImage.replaceAll("*", fill)
      // with a tag and a digest, an exact mapping of either matches
      return d === null || image.includes("@") ? image : `${image}@${d}`
    }
  )
  const image = fc.oneof(
    { arbitrary: reference(v), weight: 3 },
    { arbitrary: own, weight: 4 },
    { arbitrary: fc.constantFrom(...entries).map((e) => e.toImage), weight: 1 },
    { arbitrary: invalidImage, weight: 1 }
  )
  return fc.array(
    fc.tuple(image, platform).map(([image, platform]): Decider.DecisionAsk => platform === undefined ? { image } : { image, platform }),
    { minLength: 1, maxLength: 30, size: "max" }
  )
}

/** A mappings file (as its text) and what findings ask of it. */
const policyAndAsks = vocabulary.chain((v) =>
  mappingsEntries(v).chain((entries) => fc.tuple(fc.constant(MappingsFile.encodeMappingsFile(entries)), asksFor(v, entries)))
)

/** What a user compares of a decision: everything but the ids of the group, phase, mapping and snooze. */
const seen = (d: Decision.Decision) => ({
  image: d.image,
  normalized: d.normalized ?? null,
  platform: d.platform ?? null,
  invalid: d.invalid ?? null,
  resolution: d.resolution === null ? null : {
    key: Mapping.mappingKey(d.resolution.fromImage, d.resolution.platformScope),
    fromImage: d.resolution.fromImage,
    toImage: d.resolution.toImage,
    reason: d.resolution.reason,
    mappingReason: d.resolution.mappingReason ?? null
  },
  snoozed: d.snoozed !== undefined,
  outOfPolicy: Decision.isOutOfPolicy(d)
})

describe("check: offline and server decisions agree (property)", () => {
  let host: TestHost
  let dir = ""
  const fixture = FixtureVcs.make()

  /** The file as the external phase's file, synced: the server's published policy for every repository. */
  const publish = async (text: string) => {
    const answer = await publishMappingsFile(host, fixture, text)
    expect(answer.error ?? null, answer.error).toBeNull()
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "image-policy-check-property-"))
    host = await startTestHost({ vcs: { fixture: fixture.provider } })
    await applyToEveryRepository(host)
  })
  afterAll(async () => {
    await host?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it("the same mappings file decides every reference alike offline and published on a server", async () => {
    const server = Decider.server({ baseUrl: host.url, orgId: host.org.id, apiKey: secrets.readOnly })
    let run = 0
    await fc.assert(
      fc.asyncProperty(policyAndAsks, async ([file, asks]) => {
        const path = join(dir, `service-mappings-${run++}.json`)
        writeFileSync(path, file)
        await publish(file)
        const offline = await Effect.runPromise(
          Effect.flatMap(Decider.offline(path), (decider) => decider.decide(asks)).pipe(Effect.provide(NodeFileSystem.layer))
        )
        const online = await Effect.runPromise(server.decide(asks))
        expect(online.map(seen), file).toEqual(offline.map(seen))
      }),
      { numRuns: 300 }
    )
  }, 120_000)

  it("a valid reference longer than the decision API takes is a failure of the server decider, never a guess", async () => {
    // a registry name of 1,100 characters: a valid reference the API does not take
    const image = `${"r".repeat(1100)}.example/app:1`
    const server = Decider.server({ baseUrl: host.url, orgId: host.org.id, apiKey: secrets.readOnly })
    const failure = await Effect.runPromise(Effect.flip(server.decide([{ image: "redis:7" }, { image }])))
    expect(failure).toMatchObject({ _tag: "CheckFailure", reason: "server" })
    expect(failure.message).toContain("images of at most 1024 characters")
  })
})
