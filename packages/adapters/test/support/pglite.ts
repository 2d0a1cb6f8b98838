/**
 * A fresh in-memory PGlite for a test: the empty cluster `PGlite.create()` makes, restored from a
 * dump of one such cluster instead of running initdb again. initdb is most of what
 * `PGlite.create()` costs (seconds, tens of seconds on a busy 2-core machine); restoring takes a
 * fraction of it. The dump is made once per machine and PGlite version, by whichever test process
 * asks first, in the temporary directory; every instance is still a database of its own.
 *
 * ```ts
 * const pglite = await freshPglite()
 * storeContract("pglite", migrated(PgliteClient.layerFromInstance(pglite)))
 * // or, opened and closed with a layer:
 * StoreConfig.migrated(layerFresh())
 * ```
 */
import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgliteClient from "../../src/storage/sql/PgliteClient.js"

const version = (JSON.parse(
  readFileSync(new URL("../../../../node_modules/@electric-sql/pglite/package.json", import.meta.url), "utf8")
) as { version: string }).version

const dumpPath = join(tmpdir(), `image-policy-pglite-${version}-empty.tar`)

let dump: Promise<Blob> | undefined

const emptyCluster = (): Promise<Blob> =>
  dump ??= (async () => {
    if (existsSync(dumpPath)) return new Blob([readFileSync(dumpPath)])
    const pglite = await PGlite.create()
    try {
      const made = await pglite.dumpDataDir("none")
      const bytes = Buffer.from(await made.arrayBuffer())
      // written aside, then renamed: a process reading the dump never sees half of one
      const partial = `${dumpPath}.${process.pid}.partial`
      writeFileSync(partial, bytes)
      renameSync(partial, dumpPath)
      return new Blob([bytes])
    } finally {
      await pglite.close()
    }
  })()

/** A new, empty in-memory PGlite; the caller closes it. */
export const freshPglite = async (): Promise<PGlite> => PGlite.create({ loadDataDir: await emptyCluster() })

/** `PgliteClient.layer()` (in memory) over a fresh PGlite: opened with the layer, closed with it. */
export const layerFresh = (): Layer.Layer<PgliteClient.PgliteClient | SqlClient.SqlClient> =>
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(Effect.promise(freshPglite), (pglite) => Effect.promise(() => pglite.close())),
      (pglite) => PgliteClient.layerFromInstance(pglite)
    )
  )
