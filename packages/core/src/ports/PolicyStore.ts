/** Policy groups with their phases, the draft mappings of their phases and the published ones. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { MappingId, OrgId, PhaseId, PolicyGroupId } from "../Id.js"
import type { DraftMapping } from "../Mapping.js"
import type { Page, PageRequest } from "../Page.js"
import type { ExternalSource, PolicyGroup, PublishedMapping } from "../PolicyGroup.js"

/** Where an external phase lives. */
export interface ExternalPhaseRef {
  readonly orgId: OrgId
  readonly policyGroupId: PolicyGroupId
  readonly phaseId: PhaseId
  /** The phase's source as stored (the poll worker decides from it which phases are due). */
  readonly external: ExternalSource
}

export class PolicyStore extends Context.Service<PolicyStore, {
  readonly policyGroups: {
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<PolicyGroup>>
    /** Every group of the org (for assignment checks and resolution; orgs have few groups). */
    readonly all: (orgId: OrgId) => Effect.Effect<ReadonlyArray<PolicyGroup>>
    readonly get: (orgId: OrgId, id: PolicyGroupId) => Effect.Effect<Option.Option<PolicyGroup>>
    /** Inserts the group, or replaces the group with its id (its phases and settings). */
    readonly insert: (orgId: OrgId, group: PolicyGroup) => Effect.Effect<void>
    /** Takes the group's row lock until the transaction ends (serializes drafts and publish). */
    readonly lock: (orgId: OrgId, id: PolicyGroupId) => Effect.Effect<void>
    readonly setExternalState: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseId: PhaseId,
      state: Pick<ExternalSource, "lastSyncedAt" | "lastError" | "lastVersion">
    ) => Effect.Effect<void>
    /** Unscoped: every external phase of every organization, for the sync worker (by org, group, phase id). */
    readonly externalPhases: () => Effect.Effect<ReadonlyArray<ExternalPhaseRef>>
    /**
     * Serializes the writers of the organization's set of groups until the transaction ends (group
     * names are unique in an organization: a create or rename checks them under this lock).
     */
    readonly lockNames: (orgId: OrgId) => Effect.Effect<void>
    /** Removes the group with its drafts and its published mappings. */
    readonly delete: (orgId: OrgId, id: PolicyGroupId) => Effect.Effect<void>
  }
  readonly drafts: {
    readonly listByPhase: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseId: PhaseId,
      page: PageRequest
    ) => Effect.Effect<Page<DraftMapping>>
    readonly listByGroup: (orgId: OrgId, groupId: PolicyGroupId) => Effect.Effect<ReadonlyArray<DraftMapping>>
    readonly findByKey: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseId: PhaseId,
      key: string
    ) => Effect.Effect<Option.Option<DraftMapping>>
    /** Inserts or replaces the draft with the same (phase, key). */
    readonly put: (orgId: OrgId, groupId: PolicyGroupId, mapping: DraftMapping) => Effect.Effect<void>
    /** Removes the phase's draft with this id; answers it, or None when the phase has no such draft. */
    readonly remove: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseId: PhaseId,
      id: MappingId
    ) => Effect.Effect<Option.Option<DraftMapping>>
    /** Removes every draft of the phase. */
    readonly removeByPhase: (orgId: OrgId, groupId: PolicyGroupId, phaseId: PhaseId) => Effect.Effect<void>
  }
  readonly published: {
    readonly listByGroup: (orgId: OrgId, groupId: PolicyGroupId) => Effect.Effect<ReadonlyArray<PublishedMapping>>
    /**
     * The published mappings of several groups in one read (a branch's policy), each group's list
     * as `listByGroup` answers it; a group without mappings (or unknown) maps to an empty list.
     */
    readonly listByGroups: (
      orgId: OrgId,
      groupIds: ReadonlyArray<PolicyGroupId>
    ) => Effect.Effect<ReadonlyMap<PolicyGroupId, ReadonlyArray<PublishedMapping>>>
    /** Replaces the published mappings of the given phases of a group with `mappings`. */
    readonly replace: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseIds: ReadonlyArray<PhaseId>,
      mappings: ReadonlyArray<PublishedMapping>
    ) => Effect.Effect<void>
  }
}>()("@image-policy/core/PolicyStore") {}
