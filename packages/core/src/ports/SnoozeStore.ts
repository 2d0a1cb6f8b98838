/** Snooze requests (exceptions to remediation for one image of one repository). */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { OrgId, RepositoryId, SnoozeRequestId } from "../Id.js"
import type { Page, PageRequest } from "../Page.js"
import type { SnoozeFilter, SnoozeRequest, SnoozeStatus } from "../SnoozeRequest.js"

export class SnoozeStore extends Context.Service<SnoozeStore, {
  readonly insert: (orgId: OrgId, request: SnoozeRequest) => Effect.Effect<void>
  /** By (createdAt, id); with a filter, only the requests it matches (`SnoozeRequest.matchesFilter`). */
  readonly list: (orgId: OrgId, page: PageRequest, filter?: SnoozeFilter) => Effect.Effect<Page<SnoozeRequest>>
  /** Every request about one repository, whatever its status, oldest first by (createdAt, id). */
  readonly listByRepository: (orgId: OrgId, repositoryId: RepositoryId) => Effect.Effect<ReadonlyArray<SnoozeRequest>>
  readonly get: (orgId: OrgId, id: SnoozeRequestId) => Effect.Effect<Option.Option<SnoozeRequest>>
  readonly update: (orgId: OrgId, request: SnoozeRequest) => Effect.Effect<void>
  /**
   * Stores `request` only if the stored request still has status `from` (compare-and-set): of
   * several writers that read the same state, exactly one moves it (the others answer false and
   * write nothing), so each transition happens, and emits its event, once.
   */
  readonly transition: (orgId: OrgId, request: SnoozeRequest, from: SnoozeStatus) => Effect.Effect<boolean>
  /**
   * The expiry worker's read over every organization: up to `limit` approved requests whose
   * `until` is at or before `now`, earliest `until` first.
   */
  readonly dueForExpiry: (options: { readonly now: Date; readonly limit: number }) => Effect.Effect<
    ReadonlyArray<{ readonly orgId: OrgId; readonly id: SnoozeRequestId }>
  >
}>()("@image-policy/core/SnoozeStore") {}
