/** Policy groups, draft and published mappings over SQL. */
import { type Id, PolicyGroup, type PolicyStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeGroup = Rows.decoder(PolicyGroup.PolicyGroup)
const decodePublished = Rows.decoder(PolicyGroup.PublishedMapping)
const DraftDoc = Schema.Struct({ ...PolicyGroup.PublishedMapping.fields, activeFrom: Schema.optionalKey(Schema.String) })
const decodeDraft = Rows.decoder(DraftDoc)

export const make = (sql: SqlClient.SqlClient): typeof PolicyStore.Service => {
  const { byCreated, die, doc, json, one, page } = Rows
  const { docPage, updateDoc } = Rows.make(sql)
  return {
    policyGroups: {
      list: (orgId, request) => docPage("policy_groups", "name", orgId, request, decodeGroup, (g) => g.name),
      all: (orgId) =>
        Effect.map(die(sql`SELECT doc FROM policy_groups WHERE org_id = ${orgId} ORDER BY name, id`), (rows) => rows.map(doc(decodeGroup))),
      get: (orgId, id) => one(sql`SELECT doc FROM policy_groups WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeGroup)),
      insert: (orgId, g) =>
        die(sql`INSERT INTO policy_groups (org_id, id, name, doc) VALUES (${orgId}, ${g.id}, ${g.name}, ${json(g)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET name = EXCLUDED.name, doc = EXCLUDED.doc`),
      lock: (orgId, id) => Effect.asVoid(die(sql`SELECT id FROM policy_groups WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`)),
      setExternalState: (orgId, groupId, phaseId, patch) =>
        updateDoc("policy_groups", orgId, groupId, decodeGroup, (group) => ({
          ...group,
          phases: group.phases.map((p) => p.id === phaseId && p.external ? { ...p, external: { ...p.external, ...patch } } : p)
        })),
      externalPhases: () =>
        Effect.map(
          die(sql`SELECT org_id, doc FROM policy_groups
            WHERE doc->'phases' @> ${json([{ sourceType: "external" }])}::jsonb ORDER BY org_id, name, id`),
          (rows) =>
            rows.flatMap((row: any) => {
              const group = decodeGroup(row.doc)
              return PolicyGroup.externalPhases(group).map((p) => ({
                orgId: row.orgId as Id.OrgId,
                policyGroupId: group.id,
                phaseId: p.id,
                external: p.external
              }))
            })
        ),
      // a transaction-scoped advisory lock: held until COMMIT or ROLLBACK, like a row lock
      lockNames: (orgId) => Effect.asVoid(die(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`policy_groups:${orgId}`}, 0))`)),
      delete: (orgId, id) =>
        Effect.gen(function*() {
          yield* die(sql`DELETE FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${id}`)
          yield* die(sql`DELETE FROM published_mappings WHERE org_id = ${orgId} AND group_id = ${id}`)
          yield* die(sql`DELETE FROM policy_groups WHERE org_id = ${orgId} AND id = ${id}`)
        })
    },
    drafts: {
      listByPhase: (orgId, groupId, phaseId, request) =>
        page(
          (after, limit) =>
            sql`SELECT doc FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId} AND phase_id = ${phaseId}
              ${after ? sql`AND (created_at, id) > (${after.sortKey}, ${after.id})` : sql``}
              ORDER BY created_at, id LIMIT ${limit}`,
          doc(decodeDraft),
          byCreated,
          request
        ),
      listByGroup: (orgId, groupId) =>
        Effect.map(
          die(sql`SELECT doc FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId} ORDER BY created_at, id`),
          (rows) => rows.map(doc(decodeDraft))
        ),
      findByKey: (orgId, groupId, phaseId, key) =>
        one(
          sql`SELECT doc FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId}
            AND phase_id = ${phaseId} AND key = ${key}`,
          doc(decodeDraft)
        ),
      put: (orgId, groupId, m) =>
        die(sql`INSERT INTO draft_mappings (org_id, group_id, phase_id, key, id, created_at, doc)
          VALUES (${orgId}, ${groupId}, ${m.phaseId}, ${m.key}, ${m.id}, ${m.createdAt}, ${json(m)}::jsonb)
          ON CONFLICT (org_id, phase_id, key) DO UPDATE SET id = EXCLUDED.id, created_at = EXCLUDED.created_at,
            doc = EXCLUDED.doc`),
      remove: (orgId, groupId, phaseId, id) =>
        one(
          sql`DELETE FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId} AND phase_id = ${phaseId}
            AND id = ${id} RETURNING doc`,
          doc(decodeDraft)
        ),
      removeByPhase: (orgId, groupId, phaseId) =>
        die(sql`DELETE FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId} AND phase_id = ${phaseId}`)
    },
    published: {
      listByGroup: (orgId, groupId) =>
        Effect.map(
          die(sql`SELECT doc FROM published_mappings WHERE org_id = ${orgId} AND group_id = ${groupId}
            ORDER BY phase_id, position`),
          (rows) => rows.map(doc(decodePublished))
        ),
      listByGroups: (orgId, groupIds) => {
        if (groupIds.length === 0) return Effect.succeed(new Map())
        return Effect.map(
          die(sql`SELECT group_id, doc FROM published_mappings WHERE org_id = ${orgId} AND ${sql.in("group_id", groupIds)}
            ORDER BY group_id, phase_id, position`),
          (rows: ReadonlyArray<any>) => {
            const byGroup = new Map<Id.PolicyGroupId, Array<PolicyGroup.PublishedMapping>>(groupIds.map((id) => [id, []]))
            for (const row of rows) byGroup.get(row.groupId)?.push(doc(decodePublished)(row))
            return byGroup
          }
        )
      },
      replace: (orgId, groupId, phaseIds, mappings) =>
        Effect.gen(function*() {
          if (phaseIds.length === 0) return
          yield* die(sql`DELETE FROM published_mappings WHERE org_id = ${orgId} AND group_id = ${groupId}
            AND ${sql.in("phase_id", phaseIds)}`)
          const rows = mappings.filter((m) => phaseIds.includes(m.phaseId)).map((m, position) => ({
            org_id: orgId,
            group_id: groupId,
            phase_id: m.phaseId,
            key: m.key,
            position,
            doc: m
          }))
          // one multi-row INSERT per chunk instead of a statement per mapping
          for (let i = 0; i < rows.length; i += 1000) {
            yield* die(sql`INSERT INTO published_mappings (org_id, group_id, phase_id, key, position, doc)
              SELECT * FROM jsonb_to_recordset(${json(rows.slice(i, i + 1000))}::jsonb)
              AS x(org_id text, group_id text, phase_id text, key text, position integer, doc jsonb)`)
          }
        })
    }
  }
}
