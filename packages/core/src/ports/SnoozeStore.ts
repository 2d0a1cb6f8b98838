/** Snooze requests (exceptions to remediation for one image of one repository). */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { OrgId, RepositoryId, SnoozeRequestId } from "../Id.js"
import type { Page, PageRequest } from "../Page.js"
import type { SnoozeRequest } from "../SnoozeRequest.js"

export class SnoozeStore extends Context.Service<SnoozeStore, {
  readonly insert: (orgId: OrgId, request: SnoozeRequest) => Effect.Effect<void>
  readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<SnoozeRequest>>
  /** Every request about one repository, whatever its status, oldest first by (createdAt, id). */
  readonly listByRepository: (orgId: OrgId, repositoryId: RepositoryId) => Effect.Effect<ReadonlyArray<SnoozeRequest>>
  readonly get: (orgId: OrgId, id: SnoozeRequestId) => Effect.Effect<Option.Option<SnoozeRequest>>
  readonly update: (orgId: OrgId, request: SnoozeRequest) => Effect.Effect<void>
}>()("@image-policy/core/SnoozeStore") {}
