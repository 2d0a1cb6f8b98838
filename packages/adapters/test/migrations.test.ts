import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Id, Store } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { afterAll } from "vitest"
import * as Migrations from "../src/storage/sql/Migrations.js"
import * as PgliteClient from "../src/storage/sql/PgliteClient.js"
import * as StoreConfig from "../src/storage/StoreConfig.js"

const tables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ tableName: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`)

describe("migrations", () => {
  it("run up from empty, and a second run is a no-op", async () => {
    const pglite = await PGlite.create()
    try {
      const program = Effect.gen(function*() {
        const first = yield* Migrations.run
        const after = yield* tables
        const second = yield* Migrations.run
        const again = yield* tables
        return { first, second, after: after.map((t) => t.tableName), again: again.map((t) => t.tableName) }
      })
      const result = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(result.first.map(([id, name]) => `${id}_${name}`), ["1_init"])
      assert.deepStrictEqual(result.second, [])
      assert.deepStrictEqual(result.again, result.after)
      assert.includeMembers(result.after, ["organizations", "draft_mappings", "deliveries", "image_policy_migrations"])
    } finally {
      await pglite.close()
    }
  })

  const dir = mkdtempSync(join(tmpdir(), "image-policy-pglite-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("a PGlite data directory survives a restart (write, close, reopen, read)", async () => {
    const spec = { _tag: "pglite", dataDir: dir } as const
    const orgId = Id.make("organization", new Uint8Array(16).fill(7)) as Id.OrgId
    const org = { id: orgId, name: "Durable", edition: "team", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 } as const
    // each call builds the store, uses it and closes PGlite again
    const withStore = <A>(f: (store: Store["Type"]) => Effect.Effect<A>) =>
      Effect.runPromise(Effect.flatMap(Store, f).pipe(Effect.provide(StoreConfig.layer(spec))) as Effect.Effect<A, never, never>)
    await withStore((store) => store.organizations.insert(org))
    const read = await withStore((store) => store.organizations.get(orgId))
    assert.deepStrictEqual(Option.getOrThrow(read), org)
  })
})
