/** API keys, members and custom roles over SQL. */
import { type AccessStore, ApiKey, type Id, Member, Organization, Role } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeKey = Rows.decoder(ApiKey.ApiKey)
const decodeOrg = Rows.decoder(Organization.Organization)
const decodeMember = Rows.decoder(Member.Member)
const decodeRole = Rows.decoder(Role.CustomRole)

/** The custom role joined as `role_doc` beside a key or a member (`LEFT JOIN roles r ...`); null for a built-in role or none. */
export const joinedCustomRole = (row: any): Role.CustomRole | null =>
  row.roleDoc === null || row.roleDoc === undefined ? null : decodeRole(row.roleDoc)

export const make = (sql: SqlClient.SqlClient): typeof AccessStore.Service => {
  const { die, doc, json, one } = Rows
  const { docPage } = Rows.make(sql)
  /**
   * Role names of one organization are written one transaction at a time: a rename cannot be
   * checked against a concurrent insert's uncommitted name (the unique key would then fail the
   * rename's statement, and with it its transaction, instead of answering `false`).
   */
  const lockRoleNames = (orgId: string) => die(sql`SELECT pg_advisory_xact_lock(hashtext(${`image-policy/roles/${orgId}`}))`)
  return {
    insert: (orgId, key) =>
      die(sql`INSERT INTO api_keys (org_id, id, secret_hash, created_at, doc)
        VALUES (${orgId}, ${key.id}, ${key.secretHash}, ${key.createdAt}, ${json(key)}::jsonb)`),
    list: (orgId, request) => docPage("api_keys", "created_at", orgId, request, decodeKey, (k) => k.createdAt),
    get: (orgId, id) => one(sql`SELECT doc FROM api_keys WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeKey)),
    // the key, its organization and its custom role in one round trip (authentication reads them on every request)
    findBySecretHash: (hash) =>
      one(
        sql`SELECT k.org_id, k.doc, o.doc AS org_doc, r.doc AS role_doc FROM api_keys k
          JOIN organizations o ON o.id = k.org_id
          LEFT JOIN roles r ON r.org_id = k.org_id AND r.id = k.doc->>'role'
          WHERE k.secret_hash = ${hash}`,
        (row: any) => ({
          orgId: row.orgId as Id.OrgId,
          key: decodeKey(row.doc),
          organization: decodeOrg(row.orgDoc),
          customRole: joinedCustomRole(row)
        })
      ),
    update: (orgId, key) => die(sql`UPDATE api_keys SET doc = ${json(key)}::jsonb WHERE org_id = ${orgId} AND id = ${key.id}`),
    // one statement, one field: a concurrent revocation's revokedAt is never overwritten
    touch: (orgId, id, at) =>
      die(sql`UPDATE api_keys SET doc = jsonb_set(doc, '{lastUsedAt}', to_jsonb(${at}::text))
        WHERE org_id = ${orgId} AND id = ${id}
          AND (doc->>'lastUsedAt' IS NULL OR doc->>'lastUsedAt' < ${at})`),
    members: {
      // ON CONFLICT DO NOTHING keeps a PostgreSQL transaction usable after a racing insert
      insert: (orgId, member) =>
        Effect.map(
          die(sql`INSERT INTO members (org_id, id, email_key, created_at, doc)
            VALUES (${orgId}, ${member.id}, ${Member.emailKey(member.email)}, ${member.createdAt}, ${json(member)}::jsonb)
            ON CONFLICT (org_id, email_key) DO NOTHING RETURNING id`),
          (rows) => rows.length > 0
        ),
      list: (orgId, request) => docPage("members", "created_at", orgId, request, decodeMember, (m) => m.createdAt),
      get: (orgId, id) => one(sql`SELECT doc FROM members WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeMember)),
      update: (orgId, member) => die(sql`UPDATE members SET doc = ${json(member)}::jsonb WHERE org_id = ${orgId} AND id = ${member.id}`),
      delete: (orgId, id) => Effect.asVoid(die(sql`DELETE FROM members WHERE org_id = ${orgId} AND id = ${id}`))
    },
    roles: {
      insert: (orgId, role) =>
        Effect.andThen(
          lockRoleNames(orgId),
          Effect.map(
            die(sql`INSERT INTO roles (org_id, id, name, name_key, doc)
              VALUES (${orgId}, ${role.id}, ${role.name}, ${Role.nameKey(role.name)}, ${json(role)}::jsonb)
              ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id`),
            (rows) => rows.length > 0
          )
        ),
      list: (orgId, request) => docPage("roles", "name", orgId, request, decodeRole, (r) => r.name),
      all: (orgId) =>
        Effect.map(die(sql`SELECT doc FROM roles WHERE org_id = ${orgId} ORDER BY name, id`), (rows) => rows.map(doc(decodeRole))),
      get: (orgId, id) => one(sql`SELECT doc FROM roles WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeRole)),
      lock: (orgId, id) => one(sql`SELECT doc FROM roles WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`, doc(decodeRole)),
      update: (orgId, role) =>
        Effect.andThen(
          lockRoleNames(orgId),
          Effect.map(
            die(sql`UPDATE roles SET name = ${role.name}, name_key = ${Role.nameKey(role.name)}, doc = ${json(role)}::jsonb
              WHERE org_id = ${orgId} AND id = ${role.id}
                AND NOT EXISTS (SELECT 1 FROM roles o WHERE o.org_id = ${orgId} AND o.name_key = ${Role.nameKey(role.name)}
                  AND o.id <> ${role.id})
              RETURNING id`),
            (rows) => rows.length > 0
          )
        ),
      delete: (orgId, id) => Effect.asVoid(die(sql`DELETE FROM roles WHERE org_id = ${orgId} AND id = ${id}`)),
      usage: (orgId, id, now) =>
        Effect.map(
          die(sql<{ members: string | number; apiKeys: string | number }>`SELECT
            (SELECT count(*) FROM members WHERE org_id = ${orgId} AND doc->>'role' = ${id}) AS members,
            (SELECT count(*) FROM api_keys WHERE org_id = ${orgId} AND doc->>'role' = ${id}
              AND doc->>'revokedAt' IS NULL AND (doc->>'expiresAt' IS NULL OR doc->>'expiresAt' > ${now})) AS api_keys`),
          (rows) => ({ members: Number(rows[0]?.members ?? 0), apiKeys: Number(rows[0]?.apiKeys ?? 0) })
        )
    }
  }
}
