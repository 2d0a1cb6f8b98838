/** API keys over SQL. */
import { type AccessStore, ApiKey, type Id, Organization } from "@image-policy/core"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeKey = Rows.decoder(ApiKey.ApiKey)
const decodeOrg = Rows.decoder(Organization.Organization)

export const make = (sql: SqlClient.SqlClient): typeof AccessStore.Service => {
  const { die, doc, json, one } = Rows
  const { docPage } = Rows.make(sql)
  return {
    insert: (orgId, key) =>
      die(sql`INSERT INTO api_keys (org_id, id, secret_hash, created_at, doc)
        VALUES (${orgId}, ${key.id}, ${key.secretHash}, ${key.createdAt}, ${json(key)}::jsonb)`),
    list: (orgId, request) => docPage("api_keys", "created_at", orgId, request, decodeKey, (k) => k.createdAt),
    get: (orgId, id) => one(sql`SELECT doc FROM api_keys WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeKey)),
    // the key and its organization in one round trip (authentication reads both on every request)
    findBySecretHash: (hash) =>
      one(
        sql`SELECT k.org_id, k.doc, o.doc AS org_doc FROM api_keys k
          JOIN organizations o ON o.id = k.org_id WHERE k.secret_hash = ${hash}`,
        (row: any) => ({ orgId: row.orgId as Id.OrgId, key: decodeKey(row.doc), organization: decodeOrg(row.orgDoc) })
      ),
    update: (orgId, key) => die(sql`UPDATE api_keys SET doc = ${json(key)}::jsonb WHERE org_id = ${orgId} AND id = ${key.id}`),
    // one statement, one field: a concurrent revocation's revokedAt is never overwritten
    touch: (orgId, id, at) =>
      die(sql`UPDATE api_keys SET doc = jsonb_set(doc, '{lastUsedAt}', to_jsonb(${at}::text))
        WHERE org_id = ${orgId} AND id = ${id}
          AND (doc->>'lastUsedAt' IS NULL OR doc->>'lastUsedAt' < ${at})`)
  }
}
