/**
 * Shared pieces of the HTTP suites: run one suite on the memory store and on PostgreSQL (and PGlite), keep one
 * host per suite, assert problem JSON, and follow cursors.
 */
import { MemoryStore } from "@image-policy/adapters"
import type { Stores } from "@image-policy/core"
import type * as Layer from "effect/Layer"
import { afterAll, beforeAll, expect } from "vitest"
import * as PgClient from "../../../adapters/src/storage/sql/PgClient.js"
import * as StoreConfig from "../../../adapters/src/storage/StoreConfig.js"
import { layerFresh } from "../../../adapters/test/support/pglite.js"
import { pgDescribe } from "../../../adapters/test/support/postgres.js"
import { startTestHost, type TestHost } from "./harness.js"

export type MakeStore = () => Layer.Layer<Stores, unknown>

/**
 * Registers `suite` once over the memory store and once over a fresh PostgreSQL database (skipped
 * locally, failing on CI, when no server answers); with `pglite`, also over an in-memory PGlite
 * (a few seconds more per suite, so only where a route's SQL is new). Call with top-level await.
 */
export const onEveryStore = async (
  name: string,
  suite: (storeName: string, makeStore: MakeStore) => void,
  options: { readonly pglite?: boolean } = {}
): Promise<void> => {
  suite("memory", () => MemoryStore.layer)
  if (options.pglite === true) suite("pglite", () => StoreConfig.migrated(layerFresh()))
  await pgDescribe(`http-${name}`, (url) => {
    suite("postgres", () => StoreConfig.migrated(PgClient.layerFromUrl(url, { maxConnections: 4 })))
  })
}

/** One real host for the enclosing describe block; read it inside tests with `host()`. */
export const useHost = (makeStore: MakeStore): () => TestHost => {
  let running: TestHost | undefined
  beforeAll(async () => {
    running = await startTestHost({ store: makeStore() })
  })
  afterAll(async () => {
    await running?.stop()
  })
  return () => {
    if (running === undefined) throw new Error("host not started")
    return running
  }
}

// one definition of what a problem answer must be, shared by every HTTP suite
export { type Answer, expectProblem } from "./problem.js"
import type { Answer } from "./problem.js"

/** A successful JSON answer with the given status. */
export const expectJson = (answer: Answer, status: number): any => {
  expect(answer.status, `${answer.status} ${answer.text}`).toBe(status)
  expect(answer.headers.get("content-type") ?? "").toMatch(/^application\/json/)
  return answer.body
}

/** Follows `nextCursor` from the first page to the last; returns every item and the pages seen. */
export const readAllPages = async (
  host: TestHost,
  path: string,
  options: { readonly limit?: number; readonly key?: string } = {}
): Promise<{ readonly items: Array<any>; readonly pages: number }> => {
  const items: Array<any> = []
  let cursor: string | undefined
  let pages = 0
  const separator = path.includes("?") ? "&" : "?"
  for (;;) {
    const query = [
      ...(options.limit !== undefined ? [`limit=${options.limit}`] : []),
      ...(cursor !== undefined ? [`cursor=${encodeURIComponent(cursor)}`] : [])
    ].join("&")
    const answer = await host.request(
      "GET",
      query === "" ? path : `${path}${separator}${query}`,
      options.key !== undefined ? { key: options.key } : {}
    )
    const body = expectJson(answer, 200)
    pages++
    items.push(...body.items)
    if (body.nextCursor === undefined) break
    expect(body.nextCursor).toBeTypeOf("string")
    cursor = body.nextCursor
    if (pages > 1000) throw new Error(`pagination of ${path} does not end`)
  }
  return { items, pages }
}

/** Every audit row of org_acme (read with its owner key). */
export const auditRows = async (host: TestHost): Promise<Array<any>> =>
  (await readAllPages(host, `/api/v1/org/${host.org.id}/audit-events`, { limit: 200 })).items
