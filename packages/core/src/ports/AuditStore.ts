/** The audit trail: one row per change (or rejected attempt), written in the change's transaction. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { AuditEvent, AuditFilter } from "../Audit.js"
import type { OrgId } from "../Id.js"
import type { Page, PageRequest } from "../Page.js"

export class AuditStore extends Context.Service<AuditStore, {
  readonly append: (orgId: OrgId, event: AuditEvent) => Effect.Effect<void>
  /**
   * Newest first by (at, id); with a filter, only the rows it matches (`Audit.matches`; its bounds
   * already normalized by `Audit.normalizeFilter`).
   */
  readonly list: (orgId: OrgId, page: PageRequest, filter?: AuditFilter) => Effect.Effect<Page<AuditEvent>>
}>()("@image-policy/core/AuditStore") {}
