/** Members' passwords and browser sessions in the memory state (issue 17). */
import { type CredentialMatch, Member, type SessionStore } from "@image-policy/core"
import * as Option from "effect/Option"
import { put, remove, type State } from "./State.js"

export const make = (s: State): typeof SessionStore.Service => ({
  credentials: {
    set: (orgId, memberId, passwordHash) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o?.members.has(memberId)) put(undo, o.credentials, memberId, passwordHash)
      }),
    has: (orgId, memberId) => s.read(() => s.state(orgId)?.credentials.has(memberId) ?? false),
    findByEmail: (emailKey) =>
      s.read(() => {
        const found: Array<CredentialMatch> = []
        for (const o of s.orgs.values()) {
          for (const member of o.members.values()) {
            const passwordHash = o.credentials.get(member.id)
            if (passwordHash === undefined || Member.emailKey(member.email) !== emailKey) continue
            const customRole = member.role !== null ? o.roles.get(member.role) ?? null : null
            found.push({ orgId: o.org.id, organization: o.org, member, customRole, passwordHash })
          }
        }
        return found.sort((a, b) =>
          a.member.createdAt < b.member.createdAt ? -1 : a.member.createdAt > b.member.createdAt ? 1 : a.orgId < b.orgId ? -1 : 1
        )
      })
  },
  insert: (orgId, session) => s.run((undo) => put(undo, s.need(orgId).sessions, session.id, session)),
  findByTokenHash: (tokenHash) =>
    s.read(() => {
      for (const o of s.orgs.values()) {
        for (const session of o.sessions.values()) {
          if (session.tokenHash !== tokenHash) continue
          const member = o.members.get(session.memberId)
          if (member === undefined) return Option.none()
          const customRole = member.role !== null ? o.roles.get(member.role) ?? null : null
          return Option.some({ orgId: o.org.id, organization: o.org, member, customRole, session })
        }
      }
      return Option.none()
    }),
  touch: (orgId, id, at) =>
    s.run((undo) => {
      const o = s.state(orgId)
      const session = o?.sessions.get(id)
      if (o && session && session.lastSeenAt < at) put(undo, o.sessions, id, { ...session, lastSeenAt: at })
    }),
  delete: (orgId, id) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o) remove(undo, o.sessions, id)
    }),
  deleteForMember: (orgId, memberId) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (!o) return
      for (const session of [...o.sessions.values()]) if (session.memberId === memberId) remove(undo, o.sessions, session.id)
    }),
  prune: (orgId, memberId, now, lastSeenBefore) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (!o) return
      for (const session of [...o.sessions.values()]) {
        if (session.memberId === memberId && (session.expiresAt <= now || session.lastSeenAt <= lastSeenBefore)) {
          remove(undo, o.sessions, session.id)
        }
      }
    })
})
