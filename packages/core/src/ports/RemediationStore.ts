/** Remediation pull/merge requests, per repository branch. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { OrgId, RemediationId, RepositoryId } from "../Id.js"
import type { Page, PageRequest } from "../Page.js"
import type { RemediationRequest } from "../Remediation.js"

export class RemediationStore extends Context.Service<RemediationStore, {
  /** Inserts or replaces the request with the same id. */
  readonly put: (orgId: OrgId, request: RemediationRequest) => Effect.Effect<void>
  readonly get: (orgId: OrgId, id: RemediationId) => Effect.Effect<Option.Option<RemediationRequest>>
  /** The branch's newest request by (createdAt, id), whatever its status, or of those that did not fail. */
  readonly latest: (
    orgId: OrgId,
    repositoryId: RepositoryId,
    branchName: string,
    options?: { readonly excludeFailed?: boolean }
  ) => Effect.Effect<Option.Option<RemediationRequest>>
  /**
   * The repository's newest request by (createdAt, id) that the provider numbered `number` and that
   * is not a failed attempt, whatever its status.
   */
  readonly findByNumber: (
    orgId: OrgId,
    repositoryId: RepositoryId,
    number: number
  ) => Effect.Effect<Option.Option<RemediationRequest>>
  /**
   * Sets every request of the repository (of the named branches, or all) that is neither `closed`
   * nor `merged` yet to `closed`, `updatedAt` = `at`; answers how many it closed.
   */
  readonly close: (
    orgId: OrgId,
    repositoryId: RepositoryId,
    options: { readonly at: string; readonly branchNames?: ReadonlyArray<string> }
  ) => Effect.Effect<number>
  /** A repository's requests, newest first by (createdAt, id). */
  readonly list: (orgId: OrgId, repositoryId: RepositoryId, page: PageRequest) => Effect.Effect<Page<RemediationRequest>>
}>()("@image-policy/core/RemediationStore") {}
