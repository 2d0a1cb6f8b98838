/** API keys, members and custom roles in the memory state. */
import { type AccessStore, ApiKey, Member, Role } from "@image-policy/core"
import * as Option from "effect/Option"
import { byCreated, byName, paginate, put, remove, sortBy, type State } from "./State.js"

export const make = (s: State): typeof AccessStore.Service => ({
  insert: (orgId, key) => s.run((undo) => put(undo, s.need(orgId).apiKeys, key.id, key)),
  list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.apiKeys), byCreated), byCreated, page)),
  get: (orgId, id) => s.getIn(orgId, (o) => o.apiKeys, id),
  findBySecretHash: (secretHash) =>
    s.read(() => {
      for (const o of s.orgs.values()) {
        for (const key of o.apiKeys.values()) {
          if (key.secretHash === secretHash) {
            const customRole = key.role !== null ? o.roles.get(key.role) ?? null : null
            return Option.some({ orgId: o.org.id, key, organization: o.org, customRole })
          }
        }
      }
      return Option.none()
    }),
  update: (orgId, key) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o?.apiKeys.has(key.id)) put(undo, o.apiKeys, key.id, key)
    }),
  touch: (orgId, id, at) =>
    s.run((undo) => {
      const o = s.state(orgId)
      const key = o?.apiKeys.get(id)
      if (o && key && (key.lastUsedAt === null || key.lastUsedAt < at)) put(undo, o.apiKeys, id, { ...key, lastUsedAt: at })
    }),
  members: {
    insert: (orgId, member) =>
      s.run((undo) => {
        const o = s.need(orgId)
        const email = Member.emailKey(member.email)
        for (const m of o.members.values()) if (Member.emailKey(m.email) === email) return false
        put(undo, o.members, member.id, member)
        return true
      }),
    list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.members), byCreated), byCreated, page)),
    get: (orgId, id) => s.getIn(orgId, (o) => o.members, id),
    update: (orgId, member) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o?.members.has(member.id)) put(undo, o.members, member.id, member)
      }),
    // the member's password and sessions go with it (as the SQL store's foreign keys cascade)
    delete: (orgId, id) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (!o) return
        remove(undo, o.members, id)
        remove(undo, o.credentials, id)
        for (const session of [...o.sessions.values()]) if (session.memberId === id) remove(undo, o.sessions, session.id)
      })
  },
  roles: {
    insert: (orgId, role) =>
      s.run((undo) => {
        const o = s.need(orgId)
        const name = Role.nameKey(role.name)
        for (const r of o.roles.values()) if (Role.nameKey(r.name) === name) return false
        put(undo, o.roles, role.id, role)
        return true
      }),
    list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.roles), byName), byName, page)),
    all: (orgId) => s.read(() => sortBy(s.valuesOf(orgId, (o) => o.roles), byName)),
    get: (orgId, id) => s.getIn(orgId, (o) => o.roles, id),
    // the state's one lock already serializes every transaction
    lock: (orgId, id) => s.getIn(orgId, (o) => o.roles, id),
    update: (orgId, role) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (!o?.roles.has(role.id)) return false
        const name = Role.nameKey(role.name)
        for (const r of o.roles.values()) if (r.id !== role.id && Role.nameKey(r.name) === name) return false
        put(undo, o.roles, role.id, role)
        return true
      }),
    delete: (orgId, id) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o) remove(undo, o.roles, id)
      }),
    usage: (orgId, id, now) =>
      s.read(() => {
        const o = s.state(orgId)
        if (!o) return { members: 0, apiKeys: 0 }
        let members = 0
        let apiKeys = 0
        for (const m of o.members.values()) if (m.role === id) members++
        for (const k of o.apiKeys.values()) if (k.role === id && ApiKey.status(k, Date.parse(now)) === "active") apiKeys++
        return { members, apiKeys }
      })
  }
})
