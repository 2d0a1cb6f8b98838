/**
 * Property: "random input never throws" at the HTTP level. Random JSON, near-valid bodies and
 * non-JSON text sent to EVERY POST route of the served OpenAPI document, with path parameters
 * filled by real ids of the organization and by random strings, never produce a 5xx; every error
 * is problem JSON (contracts 4). Strings include NUL and unpaired surrogates, which PostgreSQL
 * cannot store, so the suite runs on the memory store and on PostgreSQL.
 */
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { memoryStore, postgresStore, type StoreFactory } from "./support/problem.js"

/** Runs per store over all POST routes together (spread evenly, so every route is exercised). */
const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 200)

/** Mostly printable text, sometimes any code point, rarely NUL or half of a surrogate pair. */
const textUnit = fc.oneof(
  { weight: 30, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 10, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.constantFrom("\u0000", "\ud800", "\udfff", "\u202e", "\ufeff") }
)
const text = (maxLength: number) => fc.string({ unit: textUnit, maxLength })
const json = (maxDepth: number) => fc.jsonValue({ maxDepth, stringUnit: textUnit })

/** encodeURIComponent, but a lone surrogate (which it refuses) is sent as its WTF-8 bytes. */
const encodeSegment = (segment: string): string => {
  let out = ""
  for (let i = 0; i < segment.length; i++) {
    const code = segment.charCodeAt(i)
    const next = segment.charCodeAt(i + 1)
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(segment.slice(i, i + 2))
      i++
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`).join("")
    } else {
      out += encodeURIComponent(segment[i]!)
    }
  }
  return out
}

const suite = (name: string, makeStore: StoreFactory) =>
  describe(`random requests never answer 5xx (${name})`, () => {
    let host: TestHost
    let postPaths: Array<string> = []
    const realIds: Record<string, Array<string>> = {}
    const examples: Record<string, unknown> = {}

    beforeAll(async () => {
      host = await startTestHost({ store: makeStore() })
      const doc = (await host.request("GET", "/api/v1/openapi.json", { key: null })).body
      postPaths = Object.entries<any>(doc.paths).filter(([, item]) => item.post !== undefined).map(([path]) => path)

      const org = host.org
      const onboarded = await host.request("POST", "/api/v1/org/org_acme/repositories", {
        body: {
          vcsConnectionId: org.vcsConnections["acme"],
          externalRepoId: "1001",
          assignedTeamId: org.teams["Platform"],
          assignedRoutineId: org.routines["Platform/Weekly"],
          branchNames: ["main"]
        }
      })
      expect(onboarded.status).toBe(201)
      const repositoryId = onboarded.body.repository.id
      const snooze = await host.request("POST", "/api/v1/org/org_acme/snooze-requests", {
        body: { repositoryId, fromImage: "node:18", reason: "fuzz", until: "2099-01-01T00:00:00Z" }
      })
      expect(snooze.status).toBe(201)
      // a key the fuzzer may revoke (never the keys it sends)
      const spare = await host.request("POST", "/api/v1/org/org_acme/api-keys", {
        body: { name: "spare", role: "Read Only", expiresInDays: 30 }
      })
      expect(spare.status).toBe(201)

      const groups = Object.values(org.policyGroups)
      Object.assign(realIds, {
        // mostly the key's own organization, so most requests get past authentication
        orgId: ["org_acme", "org_acme", "org_acme", "org_acme", "org_acme", "org_acme", "org_globex", "org_free"],
        groupId: [...groups.map((g) => g.id), host.ids[1]!.policyGroups["Globex images"]!.id],
        phaseId: groups.flatMap((g) => Object.values(g.phases)),
        repositoryId: [repositoryId],
        snoozeRequestId: [snooze.body.id],
        keyId: [spare.body.id],
        connectionId: Object.values(org.vcsConnections),
        teamId: Object.values(org.teams)
      })
      const base = org.policyGroups["Base images"]!
      Object.assign(examples, {
        "/api/v1/org/{orgId}/repositories": {
          vcsConnectionId: org.vcsConnections["acme"],
          externalRepoId: "1002",
          assignedTeamId: org.teams["Platform"],
          assignedRoutineId: org.routines["Platform/Weekly"],
          branchNames: ["main", "develop"]
        },
        "/api/v1/org/{orgId}/repositories/{repositoryId}/policy-groups": {
          assignments: [{ policyGroupId: base.id, branchNames: ["main"] }]
        },
        "/api/v1/org/{orgId}/policy-groups/{groupId}/phases/{phaseId}/mappings": {
          fromImage: "nginx:1",
          toImage: "registry.acme.test/nginx:1.25.3",
          reason: "fuzz",
          platformScope: "linux/amd64"
        },
        "/api/v1/org/{orgId}/api-keys": { name: "fuzzed", permissions: ["policy:read"], expiresInDays: 30 },
        "/api/v1/org/{orgId}/snooze-requests": { repositoryId, fromImage: "redis:7", reason: "fuzz", until: "2099-01-01T00:00:00Z" },
        "/api/v1/org/{orgId}/snooze-requests/{snoozeRequestId}/review": { decision: "approve", comment: "fuzz" }
      })
    })
    afterAll(() => host?.stop())

    const randomId = fc.oneof(
      fc.string({ maxLength: 40 }),
      text(20),
      fc.constantFrom(
        "..",
        ".",
        "%",
        "%00",
        "\u0000",
        "a\ud800b",
        "a/b",
        "pg_00000000000000000000000000",
        "repo_zzzzzzzzzzzzzzzzzzzzzzzzzz",
        "x".repeat(300)
      )
    )

    const pathFor = (template: string) => {
      const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
      return fc.tuple(...names.map((name) =>
        fc.oneof(
          { weight: name === "orgId" ? 12 : 2, arbitrary: fc.constantFrom(...(realIds[name] ?? ["unknown"])) },
          { weight: 1, arbitrary: randomId }
        )
      )).map((values) => names.reduce((path, name, i) => path.replace(`{${name}}`, encodeSegment(values[i]!)), template))
    }

    /** Near-valid bodies: the example itself, with a field dropped, replaced by random JSON or a random string, or with an extra field. */
    const nearValid = (example: Record<string, unknown>) => {
      const keys = Object.keys(example)
      return fc.oneof(
        fc.constant(example),
        fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(example).filter(([key]) => key !== k))),
        fc.tuple(fc.constantFrom(...keys), json(3)).map(([k, v]) => ({ ...example, [k]: v })),
        fc.tuple(fc.constantFrom(...keys), text(60)).map(([k, v]) => ({ ...example, [k]: v })),
        // one field with a little random text around its valid value
        fc.tuple(fc.constantFrom(...keys), text(3), text(3)).map(([k, before, after]) =>
          typeof example[k] === "string" ? { ...example, [k]: `${before}${example[k]}${after}` } : example
        ),
        fc.tuple(text(20), json(2)).map(([k, v]) => ({ ...example, [k]: v })),
        fc.tuple(fc.constantFrom(...keys), fc.constantFrom(null, [], {}, -1, 0, 1e308, "", " ", "*", "::", true, "a\u0000b", "\udc00"))
          .map(([k, v]) => ({ ...example, [k]: v }))
      )
    }

    type Body = { readonly kind: "json"; readonly value: unknown } | { readonly kind: "raw"; readonly text: string } | {
      readonly kind: "none"
    }
    const bodyFor = (template: string): fc.Arbitrary<Body> => {
      const example = examples[template] as Record<string, unknown> | undefined
      const arbitraries: Array<fc.Arbitrary<Body>> = [
        json(4).map((value) => ({ kind: "json" as const, value })),
        fc.anything({ maxDepth: 3 }).map((value) => {
          // anything, as JSON would carry it (undefined, functions, symbols, cycles are impossible in JSON)
          let text: string | undefined
          try {
            text = JSON.stringify(value)
          } catch {
            text = undefined
          }
          return text === undefined ? { kind: "none" as const } : { kind: "raw" as const, text }
        }),
        text(80).map((raw) => ({ kind: "raw" as const, text: raw })),
        // deep nesting, which recursive decoders cannot survive
        fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom("[", "{\"a\":")).map(([depth, open]) => ({
          kind: "raw" as const,
          text: open.repeat(depth) + (open === "[" ? "" : "1") + (open === "[" ? "]" : "}").repeat(depth)
        })),
        fc.constant({ kind: "none" as const })
      ]
      const weighted = arbitraries.map((arbitrary) => ({ weight: 1, arbitrary }))
      // near-valid bodies get deepest into the workflows: most of the runs of a route with a body
      if (example !== undefined) {
        weighted.push({
          weight: 6,
          arbitrary: nearValid(example).map((value) => ({ kind: "json" as const, value }))
        })
      }
      return fc.oneof(...weighted)
    }

    const keyArbitrary = fc.oneof(
      { weight: 12, arbitrary: fc.constant<string | null>(secrets.owner) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | null>(secrets.readOnly, secrets.draftsOnly, secrets.otherOrg, secrets.freeEdition, null)
      }
    )

    it(`${TOTAL_RUNS} random POST requests spread over every POST route answer below 500, errors as problem JSON`, async () => {
      expect(postPaths.length).toBeGreaterThanOrEqual(10)
      const runsPerRoute = Math.ceil(TOTAL_RUNS / postPaths.length)
      const exercised = new Map<string, number>()
      for (const template of postPaths) {
        await fc.assert(
          fc.asyncProperty(pathFor(template), bodyFor(template), keyArbitrary, async (path, body, key) => {
            const answer = await host.request("POST", path, {
              key,
              ...(body.kind === "json" ? { body: body.value } : {}),
              ...(body.kind === "raw" ? { raw: body.text, headers: { "content-type": "application/json" } } : {})
            })
            exercised.set(template, (exercised.get(template) ?? 0) + 1)
            if (answer.status >= 500) throw new Error(`${answer.status} for POST ${path}: ${answer.text}`)
            expect(answer.status).toBeGreaterThanOrEqual(200)
            if (answer.status >= 400) {
              expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/)
              expect(answer.body).toMatchObject({ type: expect.any(String), status: answer.status, detail: expect.any(String) })
            }
          }),
          { numRuns: runsPerRoute }
        )
      }
      expect([...exercised.keys()].sort()).toEqual([...postPaths].sort())
      // the fuzzed keys are still the ones we think: the owner key was never revoked by the fuzzer
      expect((await host.request("GET", "/api/v1/org/org_acme/teams")).status).toBe(200)
    }, 60_000)
  })

suite("memory", memoryStore)

await pgDescribe("http-fuzz", (url) => {
  suite("postgres", postgresStore(url))
})
