/** Members' passwords and browser sessions over SQL (issue 17); both cascade with their member. */
import { type Id, Member, Organization, type SessionStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { joinedCustomRole } from "./AccessStore.js"
import * as Rows from "./Rows.js"

const decodeOrg = Rows.decoder(Organization.Organization)
const decodeMember = Rows.decoder(Member.Member)

export const make = (sql: SqlClient.SqlClient): typeof SessionStore.Service => {
  const { die, one } = Rows
  return {
    credentials: {
      // INSERT ... SELECT: a member that does not exist (or is gone) gets nothing
      set: (orgId, memberId, passwordHash, at) =>
        die(sql`INSERT INTO member_credentials (org_id, member_id, password_hash, updated_at)
          SELECT org_id, id, ${passwordHash}, ${at} FROM members WHERE org_id = ${orgId} AND id = ${memberId}
          ON CONFLICT (org_id, member_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = EXCLUDED.updated_at`),
      has: (orgId, memberId) =>
        Effect.map(
          die(sql`SELECT 1 FROM member_credentials WHERE org_id = ${orgId} AND member_id = ${memberId}`),
          (rows) => rows.length > 0
        ),
      findByEmail: (emailKey) =>
        Effect.map(
          die(sql`SELECT m.org_id, m.doc, c.password_hash, o.doc AS org_doc, r.doc AS role_doc FROM members m
            JOIN member_credentials c ON c.org_id = m.org_id AND c.member_id = m.id
            JOIN organizations o ON o.id = m.org_id
            LEFT JOIN roles r ON r.org_id = m.org_id AND r.id = m.doc->>'role'
            WHERE m.email_key = ${emailKey}
            ORDER BY m.created_at, m.org_id`),
          (rows) =>
            rows.map((row: any) => ({
              orgId: row.orgId as Id.OrgId,
              organization: decodeOrg(row.orgDoc),
              member: decodeMember(row.doc),
              customRole: joinedCustomRole(row),
              passwordHash: row.passwordHash as string
            }))
        )
    },
    insert: (orgId, session) =>
      die(sql`INSERT INTO sessions (org_id, id, member_id, token_hash, created_at, expires_at, last_seen_at)
        VALUES (${orgId}, ${session.id}, ${session.memberId}, ${session.tokenHash}, ${session.createdAt}, ${session.expiresAt},
          ${session.lastSeenAt})`),
    // the session, its member, organization and custom role in one round trip (every console request reads them)
    findByTokenHash: (tokenHash) =>
      one(
        sql`SELECT s.org_id, s.id, s.member_id, s.token_hash, s.created_at, s.expires_at, s.last_seen_at,
            m.doc, o.doc AS org_doc, r.doc AS role_doc
          FROM sessions s
          JOIN members m ON m.org_id = s.org_id AND m.id = s.member_id
          JOIN organizations o ON o.id = s.org_id
          LEFT JOIN roles r ON r.org_id = s.org_id AND r.id = m.doc->>'role'
          WHERE s.token_hash = ${tokenHash}`,
        (row: any) => ({
          orgId: row.orgId as Id.OrgId,
          organization: decodeOrg(row.orgDoc),
          member: decodeMember(row.doc),
          customRole: joinedCustomRole(row),
          session: {
            id: row.id as Id.SessionId,
            memberId: row.memberId as Id.MemberId,
            tokenHash: row.tokenHash as string,
            createdAt: row.createdAt as string,
            expiresAt: row.expiresAt as string,
            lastSeenAt: row.lastSeenAt as string
          }
        })
      ),
    touch: (orgId, id, at) =>
      die(sql`UPDATE sessions SET last_seen_at = ${at} WHERE org_id = ${orgId} AND id = ${id} AND last_seen_at < ${at}`),
    delete: (orgId, id) => Effect.asVoid(die(sql`DELETE FROM sessions WHERE org_id = ${orgId} AND id = ${id}`)),
    deleteForMember: (orgId, memberId) => Effect.asVoid(die(sql`DELETE FROM sessions WHERE org_id = ${orgId} AND member_id = ${memberId}`)),
    prune: (orgId, memberId, now, lastSeenBefore) =>
      Effect.asVoid(
        die(sql`DELETE FROM sessions WHERE org_id = ${orgId} AND member_id = ${memberId}
          AND (expires_at <= ${now} OR last_seen_at <= ${lastSeenBefore})`)
      )
  }
}
