/**
 * Keyset pages: what every list of every store takes and answers. The cursor inside is opaque
 * (`Cursor`); the HTTP edge decodes it with `Cursor.PageRequest`, so a store only sees cursors that decode.
 *
 * List order (the same on every store, so cursors mean the same everywhere): teams, routines and
 * policy groups by (name, id); VCS connections by (externalAccountName, id); repositories, drafts,
 * API keys, webhooks and snooze requests by (createdAt, id); audit events newest first by (at, id);
 * deliveries by (updatedAt, eventId); scans newest first by (queuedAt, id); remediation requests
 * newest first by (createdAt, id); findings by (file, line, column). The cursor is
 * `Cursor.encodeCursor({ sortKey, id })` of the last row of the page.
 */
import * as Effect from "effect/Effect"

/** A keyset page request: `cursor` is opaque (`Cursor`), `limit` already validated (1..200). */
export interface PageRequest {
  readonly cursor?: string | undefined
  readonly limit: number
}

/** A page of a list: `nextCursor` is present only when more rows exist. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/** Every row of a keyset-paged list, read a page of 200 at a time (the stores' pages are bounded). */
export const readAll = <A, E, R>(list: (page: PageRequest) => Effect.Effect<Page<A>, E, R>): Effect.Effect<ReadonlyArray<A>, E, R> =>
  Effect.gen(function*() {
    const all: Array<A> = []
    let cursor: string | undefined
    do {
      const page = yield* list({ cursor, limit: 200 })
      all.push(...page.items)
      cursor = page.nextCursor ?? undefined
    } while (cursor !== undefined)
    return all
  })
