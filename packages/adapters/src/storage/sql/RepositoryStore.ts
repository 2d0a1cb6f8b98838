/** VCS connections, repositories and their assignments over SQL. */
import { Assignment, type Id, Repository, type RepositoryStore, VcsConnection } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeConnection = Rows.decoder(VcsConnection.VcsConnection)
const decodeRepository = Rows.decoder(Repository.Repository)
const decodeAssignments = Rows.decoder(Schema.Array(Assignment.RepositoryAssignment))
const settingsOf = (value: unknown) => typeof value === "string" ? JSON.parse(value) : value

export const make = (sql: SqlClient.SqlClient): typeof RepositoryStore.Service => {
  const { die, doc, json, one } = Rows
  const { docPage } = Rows.make(sql)
  return {
    vcsConnections: {
      list: (orgId, request) =>
        docPage("vcs_connections", "external_account_name", orgId, request, decodeConnection, (c) => c.externalAccountName),
      get: (orgId, id) => one(sql`SELECT doc FROM vcs_connections WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeConnection)),
      insert: (orgId, c, settings) =>
        die(sql`INSERT INTO vcs_connections (org_id, id, external_account_name, doc, settings)
          VALUES (${orgId}, ${c.id}, ${c.externalAccountName}, ${json(c)}::jsonb, ${json(settings ?? null)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET external_account_name = EXCLUDED.external_account_name,
            doc = EXCLUDED.doc, settings = EXCLUDED.settings`),
      settings: (orgId, id) =>
        Effect.map(
          one(sql`SELECT settings FROM vcs_connections WHERE org_id = ${orgId} AND id = ${id}`, (r: any) => settingsOf(r.settings)),
          Option.filter((s) => s !== null)
        ),
      setStatus: (orgId, id, status) =>
        die(sql`UPDATE vcs_connections SET doc = jsonb_set(doc, '{status}', ${json(status)}::jsonb)
          WHERE org_id = ${orgId} AND id = ${id}`),
      setSettings: (orgId, id, settings) =>
        die(sql`UPDATE vcs_connections SET settings = ${json(settings ?? null)}::jsonb WHERE org_id = ${orgId} AND id = ${id}`),
      delete: (orgId, id) => die(sql`DELETE FROM vcs_connections WHERE org_id = ${orgId} AND id = ${id}`),
      setHealth: (orgId, id, status) =>
        die(sql`UPDATE vcs_connections SET doc = jsonb_set(doc, '{status}', ${json(status)}::jsonb)
          WHERE org_id = ${orgId} AND id = ${id} AND doc->>'status' NOT IN (${status}, 'inactive')`),
      // ids are random and never reused; two rows with one id would be a bug, answered as unknown
      locate: (id) =>
        Effect.map(
          die(sql`SELECT org_id, doc, settings FROM vcs_connections WHERE id = ${id} LIMIT 2`),
          (rows: ReadonlyArray<any>) => {
            const row = rows.length === 1 ? rows[0] : undefined
            return row === undefined ? Option.none() : Option.some({
              orgId: row.orgId as Id.OrgId,
              connection: decodeConnection(row.doc),
              settings: settingsOf(row.settings)
            })
          }
        )
    },
    repositories: {
      list: (orgId, request, filter) =>
        docPage(
          "repositories",
          "created_at",
          orgId,
          request,
          decodeRepository,
          (r) => r.createdAt,
          filter?.repositoryId !== undefined ? sql`AND id = ${filter.repositoryId}` : sql``
        ),
      get: (orgId, id) => one(sql`SELECT doc FROM repositories WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeRepository)),
      findByExternalId: (orgId, connectionId, externalRepoId) =>
        one(
          sql`SELECT doc FROM repositories WHERE org_id = ${orgId} AND vcs_connection_id = ${connectionId}
            AND external_repo_id = ${externalRepoId}`,
          doc(decodeRepository)
        ),
      findByFullName: (orgId, connectionId, fullName) =>
        Effect.map(
          die(sql`SELECT doc FROM repositories WHERE org_id = ${orgId} AND vcs_connection_id = ${connectionId}
            AND lower(doc->>'fullName') = lower(${fullName}) ORDER BY created_at, id`),
          (rows) => rows.map(doc(decodeRepository))
        ),
      trackedExternalIds: (orgId, connectionId) =>
        Effect.map(
          die(sql<{ externalRepoId: string }>`SELECT external_repo_id FROM repositories
            WHERE org_id = ${orgId} AND vcs_connection_id = ${connectionId}`),
          (rows) => new Set(rows.map((r) => r.externalRepoId))
        ),
      insert: (orgId, repo) =>
        Effect.gen(function*() {
          // ON CONFLICT DO NOTHING keeps a PostgreSQL transaction usable after a racing insert
          const inserted = yield* die(sql`INSERT INTO repositories
            (org_id, id, vcs_connection_id, external_repo_id, created_at, doc)
            VALUES (${orgId}, ${repo.id}, ${repo.vcsConnectionId}, ${repo.externalRepoId}, ${repo.createdAt}, ${json(repo)}::jsonb)
            ON CONFLICT (org_id, vcs_connection_id, external_repo_id) DO NOTHING RETURNING id`)
          if (inserted.length > 0) return
          const rows = yield* die(sql<{ id: string }>`SELECT id FROM repositories WHERE org_id = ${orgId}
            AND vcs_connection_id = ${repo.vcsConnectionId} AND external_repo_id = ${repo.externalRepoId}`)
          return yield* Effect.fail(
            new Repository.RepositoryAlreadyTracked({
              externalRepoId: repo.externalRepoId,
              repositoryId: (rows[0]?.id ?? repo.id) as Id.RepositoryId
            })
          )
        }),
      lock: (orgId, id) => Effect.asVoid(die(sql`SELECT id FROM repositories WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`)),
      // the connection and provider id never change: only the document does
      update: (orgId, repo) => die(sql`UPDATE repositories SET doc = ${json(repo)}::jsonb WHERE org_id = ${orgId} AND id = ${repo.id}`),
      delete: (orgId, id) =>
        Effect.gen(function*() {
          yield* die(sql`DELETE FROM repository_assignments WHERE org_id = ${orgId} AND repository_id = ${id}`)
          yield* die(sql`DELETE FROM repositories WHERE org_id = ${orgId} AND id = ${id}`)
        }),
      // indexed by 0006_organization_admin
      count: (orgId, filter) =>
        Effect.map(
          die(sql<{ n: number | string }>`SELECT count(*) AS n FROM repositories WHERE org_id = ${orgId}
            ${filter.teamId !== undefined ? sql`AND doc->>'assignedTeamId' = ${filter.teamId}` : sql``}
            ${filter.routineId !== undefined ? sql`AND doc->>'assignedRoutineId' = ${filter.routineId}` : sql``}
            ${filter.vcsConnectionId !== undefined ? sql`AND vcs_connection_id = ${filter.vcsConnectionId}` : sql``}`),
          (rows) => Number(rows[0]?.n ?? 0)
        )
    },
    assignments: {
      get: (orgId, repositoryId) =>
        Effect.map(
          one(
            sql`SELECT doc FROM repository_assignments WHERE org_id = ${orgId} AND repository_id = ${repositoryId}`,
            doc(decodeAssignments)
          ),
          Option.getOrElse(() => [])
        ),
      replace: (orgId, repositoryId, assignments) =>
        die(sql`INSERT INTO repository_assignments (org_id, repository_id, doc)
          VALUES (${orgId}, ${repositoryId}, ${json(assignments)}::jsonb)
          ON CONFLICT (org_id, repository_id) DO UPDATE SET doc = EXCLUDED.doc`),
      referencing: (orgId, policyGroupId) =>
        Effect.map(
          die(sql`SELECT repository_id, doc FROM repository_assignments WHERE org_id = ${orgId}
            AND doc @> ${json([{ policyGroupId }])}::jsonb ORDER BY repository_id COLLATE "C"`),
          (rows: ReadonlyArray<any>) =>
            rows.map((row) => ({ repositoryId: row.repositoryId as Id.RepositoryId, assignments: doc(decodeAssignments)(row) }))
        )
    }
  }
}
