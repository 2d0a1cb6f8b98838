/**
 * A fresh PostgreSQL database per test run, for every PostgreSQL test in the repo.
 *
 * Source: `DATABASE_URL`, else a local server on 127.0.0.1:5432 (trust auth) if one answers.
 * Each call creates `ip_test_<name>_<random>` so runs never see each other's rows; `drop` removes it.
 * No server: on CI (`CI=true`) this throws, because CI must fail rather than silently skip;
 * locally it returns the reason so the suite is reported as skipped.
 *
 * ```ts
 * const db = await postgresTestDatabase("stores")
 * describe.skipIf(!db.available)("PostgreSQL", () => { ... })
 * afterAll(() => db.available ? db.drop() : undefined)
 * ```
 */
import { randomBytes } from "node:crypto"
import * as Pg from "pg"
import { afterAll, describe } from "vitest"

export type TestDatabase =
  | { readonly available: true; readonly url: string; readonly drop: () => Promise<void> }
  | { readonly available: false; readonly reason: string }

const LOCAL_URL = "postgres://postgres@127.0.0.1:5432/postgres"
const CONNECT_TIMEOUT_MS = 2_000

const withClient = async <A>(url: string, f: (client: Pg.Client) => Promise<A>): Promise<A> => {
  const client = new Pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
  // a server that goes away mid-test must not crash the test process
  client.on("error", () => {})
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end().catch(() => {})
  }
}

const databaseUrl = (serverUrl: string, database: string): string => {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}

// The URL without its password, for messages.
const describeUrl = (serverUrl: string): string => {
  try {
    const url = new URL(serverUrl)
    if (url.password !== "") url.password = "***"
    return url.toString()
  } catch {
    return "(unparsable DATABASE_URL)"
  }
}

const warned = new Set<string>()

export const postgresTestDatabase = async (name: string): Promise<TestDatabase> => {
  const serverUrl = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ""
    ? process.env.DATABASE_URL
    : LOCAL_URL
  const database = `ip_test_${name.toLowerCase().replace(/[^a-z0-9]+/g, "_")}_${randomBytes(5).toString("hex")}`
  try {
    await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${Pg.escapeIdentifier(database)}`))
  } catch (error) {
    const reason = `PostgreSQL tests skipped: no server at ${describeUrl(serverUrl)} (${
      error instanceof Error ? error.message : String(error)
    }). Set DATABASE_URL or start PostgreSQL on 127.0.0.1:5432.`
    if (process.env.CI === "true") throw new Error(reason.replace("skipped", "cannot run on CI"))
    if (!warned.has(reason)) {
      warned.add(reason)
      console.warn(reason)
    }
    return { available: false, reason }
  }
  return {
    available: true,
    url: databaseUrl(serverUrl, database),
    // FORCE (PostgreSQL 13+) ends sessions a test forgot to close instead of failing the drop.
    drop: () =>
      withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${Pg.escapeIdentifier(database)} WITH (FORCE)`)).then(() =>
        undefined
      )
  }
}

/**
 * `describe` over a fresh database: skipped (with the reason in its title) when no server is
 * available, dropped after the suite. Call with top-level await:
 * `await pgDescribe("stores", (url) => { ... })`.
 */
export const pgDescribe = async (name: string, fn: (url: string) => void): Promise<void> => {
  const db = await postgresTestDatabase(name)
  // registered at file level so the database is dropped even when `-t` filters this suite out
  if (db.available) afterAll(() => db.drop())
  describe.skipIf(!db.available)(`PostgreSQL: ${name}${db.available ? "" : ` (skipped: ${db.reason})`}`, () => {
    fn(db.available ? db.url : "postgres://unavailable")
  })
}
