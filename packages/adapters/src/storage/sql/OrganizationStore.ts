/** Organizations, teams and routines over SQL. */
import { Organization, type OrganizationStore, Routine, Team } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeOrg = Rows.decoder(Organization.Organization)
const decodeTeam = Rows.decoder(Team.Team)
const decodeRoutine = Rows.decoder(Routine.Routine)

export const make = (sql: SqlClient.SqlClient): typeof OrganizationStore.Service => {
  const { die, doc, json, one } = Rows
  const { docPage } = Rows.make(sql)
  return {
    organizations: {
      get: (orgId) => one(sql`SELECT doc FROM organizations WHERE id = ${orgId}`, doc(decodeOrg)),
      insert: (org) =>
        die(sql`INSERT INTO organizations (id, doc) VALUES (${org.id}, ${json(org)}::jsonb)
          ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`),
      lock: (orgId) => Effect.asVoid(die(sql`SELECT id FROM organizations WHERE id = ${orgId} FOR UPDATE`))
    },
    teams: {
      list: (orgId, request) => docPage("teams", "name", orgId, request, decodeTeam, (t) => t.name),
      get: (orgId, id) => one(sql`SELECT doc FROM teams WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeTeam)),
      insert: (orgId, team) =>
        die(sql`INSERT INTO teams (org_id, id, name, doc) VALUES (${orgId}, ${team.id}, ${team.name}, ${json(team)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET name = EXCLUDED.name, doc = EXCLUDED.doc`),
      delete: (orgId, id) =>
        Effect.gen(function*() {
          yield* die(sql`DELETE FROM routines WHERE org_id = ${orgId} AND team_id = ${id}`)
          yield* die(sql`DELETE FROM teams WHERE org_id = ${orgId} AND id = ${id}`)
        })
    },
    routines: {
      list: (orgId, request, filter) =>
        docPage(
          "routines",
          "name",
          orgId,
          request,
          decodeRoutine,
          (r) => r.name,
          filter?.teamId !== undefined ? sql`AND team_id = ${filter.teamId}` : sql``
        ),
      get: (orgId, id) => one(sql`SELECT doc FROM routines WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeRoutine)),
      insert: (orgId, r) =>
        die(sql`INSERT INTO routines (org_id, id, team_id, name, doc)
          VALUES (${orgId}, ${r.id}, ${r.teamId}, ${r.name}, ${json(r)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET team_id = EXCLUDED.team_id, name = EXCLUDED.name, doc = EXCLUDED.doc`),
      lock: (orgId, id) => Effect.asVoid(die(sql`SELECT id FROM routines WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`)),
      delete: (orgId, id) => die(sql`DELETE FROM routines WHERE org_id = ${orgId} AND id = ${id}`)
    }
  }
}
