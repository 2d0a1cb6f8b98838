/** Policy groups, draft and published mappings in the memory state. */
import { type Id, type Mapping, PolicyGroup, type PolicyStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { byCreated, byName, paginate, put, remove, sortBy, type State } from "./State.js"

const stripGroup = ({ groupId: _g, ...draft }: Mapping.DraftMapping & { readonly groupId: Id.PolicyGroupId }) =>
  draft as Mapping.DraftMapping

export const make = (s: State): typeof PolicyStore.Service => ({
  policyGroups: {
    list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.groups), byName), byName, page)),
    all: (orgId) => s.read(() => sortBy(s.valuesOf(orgId, (o) => o.groups), byName)),
    get: (orgId, id) => s.getIn(orgId, (o) => o.groups, id),
    insert: (orgId, group) => s.run((undo) => put(undo, s.need(orgId).groups, group.id, group)),
    lock: () => Effect.void,
    setExternalState: (orgId, groupId, phaseId, patch) =>
      s.run((undo) => {
        const o = s.state(orgId)
        const group = o?.groups.get(groupId)
        if (!o || !group) return
        put(undo, o.groups, groupId, {
          ...group,
          phases: group.phases.map((p) => p.id === phaseId && p.external ? { ...p, external: { ...p.external, ...patch } } : p)
        })
      }),
    externalPhases: () =>
      s.read(() =>
        [...s.orgs.values()].flatMap((o) =>
          sortBy(o.groups.values(), byName).flatMap((g) =>
            PolicyGroup.externalPhases(g).map((p) => ({ orgId: o.org.id, policyGroupId: g.id, phaseId: p.id, external: p.external }))
          )
        )
      ),
    lockNames: () => Effect.void, // the memory state serializes every transaction already
    delete: (orgId, id) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (!o) return
        remove(undo, o.groups, id)
        remove(undo, o.published, id)
        for (const [key, d] of [...o.drafts]) if (d.groupId === id) remove(undo, o.drafts, key)
      })
  },
  drafts: {
    listByPhase: (orgId, groupId, phaseId, page) =>
      s.read(() => {
        const rows = s.valuesOf(orgId, (o) => o.drafts).filter((d) => d.groupId === groupId && d.phaseId === phaseId)
        return paginate(sortBy(rows, byCreated).map(stripGroup), byCreated, page)
      }),
    listByGroup: (orgId, groupId) =>
      s.read(() => sortBy(s.valuesOf(orgId, (o) => o.drafts).filter((d) => d.groupId === groupId), byCreated).map(stripGroup)),
    findByKey: (orgId, groupId, phaseId, key) =>
      s.read(() => {
        const d = s.state(orgId)?.drafts.get(`${phaseId}|${key}`)
        return d && d.groupId === groupId ? Option.some(stripGroup(d)) : Option.none()
      }),
    put: (orgId, groupId, mapping) =>
      s.run((undo) => put(undo, s.need(orgId).drafts, `${mapping.phaseId}|${mapping.key}`, { ...mapping, groupId })),
    remove: (orgId, groupId, phaseId, id) =>
      s.run((undo) => {
        const drafts = s.state(orgId)?.drafts
        const found = drafts && [...drafts].find(([, d]) => d.groupId === groupId && d.phaseId === phaseId && d.id === id)
        if (!drafts || !found) return Option.none()
        remove(undo, drafts, found[0])
        return Option.some(stripGroup(found[1]))
      }),
    removeByPhase: (orgId, groupId, phaseId) =>
      s.run((undo) => {
        const drafts = s.state(orgId)?.drafts
        if (!drafts) return
        for (const [key, d] of [...drafts]) if (d.groupId === groupId && d.phaseId === phaseId) remove(undo, drafts, key)
      })
  },
  published: {
    listByGroup: (orgId, groupId) => s.read(() => s.state(orgId)?.published.get(groupId) ?? []),
    listByGroups: (orgId, groupIds) => s.read(() => new Map(groupIds.map((id) => [id, s.state(orgId)?.published.get(id) ?? []] as const))),
    replace: (orgId, groupId, phaseIds, mappings) =>
      s.run((undo) => {
        const o = s.need(orgId)
        const kept = (o.published.get(groupId) ?? []).filter((m) => !phaseIds.includes(m.phaseId))
        put(undo, o.published, groupId, [...kept, ...mappings.filter((m) => phaseIds.includes(m.phaseId))])
      })
  }
})
