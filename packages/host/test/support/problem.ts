/**
 * Assertions shared by the HTTP tests: the problem JSON every non-2xx answer must be (contracts 4)
 * and the stores the stateful suites run on (memory and PostgreSQL).
 */
import { MemoryStore, PgClient, StoreConfig } from "@image-policy/adapters"
import type { Stores } from "@image-policy/core"
import type * as Layer from "effect/Layer"
import { expect } from "vitest"
import { secrets } from "./harness.js"

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

/**
 * Asserts `answer` is the problem JSON of `status`: `application/problem+json` with `type`, `title`,
 * `status` and `detail`; with `type` checks the problem type, with `paths` that `errors[]` names
 * each of those fields. Returns the body for further checks.
 */
export const expectProblem = (
  answer: Answer,
  status: number,
  options: { readonly type?: string; readonly paths?: ReadonlyArray<string> } = {}
): any => {
  expect(answer.status, `expected ${status}, got ${answer.status}: ${answer.text}`).toBe(status)
  expect(answer.headers.get("content-type") ?? "").toMatch(/^application\/problem\+json/)
  expect(answer.body).toMatchObject({
    type: expect.stringMatching(/^\/problems\/[a-z0-9-]+$/),
    title: expect.any(String),
    status,
    detail: expect.any(String)
  })
  expect(answer.body.detail.length).toBeGreaterThan(0)
  if (options.type !== undefined) expect(answer.body.type).toBe(options.type)
  if (options.paths !== undefined) {
    expect(Array.isArray(answer.body.errors), `errors[] expected in ${answer.text}`).toBe(true)
    for (const error of answer.body.errors) {
      expect(error).toEqual({ path: expect.any(String), message: expect.any(String) })
    }
    const named = answer.body.errors.map((e: { path: string }) => e.path)
    for (const path of options.paths) expect(named, `errors[] should name ${path}: ${answer.text}`).toContain(path)
  }
  expectNoLeak(answer)
  return answer.body
}

/** No answer holds a stack trace (`at ` with a file path) or one of the seeded secrets. */
export const expectNoLeak = (answer: Answer, extraSecrets: ReadonlyArray<string> = []) => {
  expect(answer.text).not.toMatch(/\bat .*(\.ts|\.js|node:)[^"]*:\d+/)
  expect(answer.text).not.toMatch(/\/work\/|node_modules|file:\/\//)
  for (const secret of [...Object.values(secrets), ...extraSecrets]) expect(answer.text).not.toContain(secret)
}

export type StoreFactory = () => Layer.Layer<Stores, unknown>

export const memoryStore: StoreFactory = () => MemoryStore.layer

export const postgresStore = (url: string): StoreFactory => () => StoreConfig.migrated(PgClient.layerFromUrl(url, { maxConnections: 4 }))
