import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import { prop } from "./support/fcProp.js"

const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 })

describe("Id", () => {
  prop("an id is its kind's prefix and 26 base32 characters, and decodes with its schema", [bytes16], ([bytes]) => {
    const id = Id.make("repository", bytes)
    assert.match(id, /^repo_[0-9a-z]{26}$/)
    assert.strictEqual(Schema.decodeUnknownSync(Id.RepositoryId)(id), id)
  })

  prop("different random bytes give different ids (no information lost)", [bytes16, bytes16], ([a, b]) => {
    assert.strictEqual(Id.make("team", a) === Id.make("team", b), a.every((x, i) => x === b[i]))
  })

  // `make` (and the Ids port) answer the branded type of the kind asked for: each must decode with that kind's schema
  const schemaOf: { readonly [K in Id.Kind]: Schema.Codec<Id.IdOfKind[K], string> } = {
    organization: Id.OrgId,
    serviceAccount: Id.ServiceAccountId,
    team: Id.TeamId,
    routine: Id.RoutineId,
    vcsConnection: Id.VcsConnectionId,
    repository: Id.RepositoryId,
    policyGroup: Id.PolicyGroupId,
    phase: Id.PhaseId,
    mapping: Id.MappingId,
    apiKey: Id.ApiKeyId,
    webhook: Id.WebhookId,
    snoozeRequest: Id.SnoozeRequestId,
    event: Id.EventId,
    audit: Id.AuditEventId,
    scan: Id.ScanId,
    remediation: Id.RemediationId,
    member: Id.MemberId,
    role: Id.RoleId,
    session: Id.SessionId
  }
  prop("an id made for a kind decodes with that kind's schema, for every kind", [
    fc.constantFrom(...Object.keys(Id.prefixes) as Array<Id.Kind>),
    bytes16
  ], ([kind, bytes]) => {
    assert.isTrue(Schema.is(schemaOf[kind])(Id.make(kind, bytes)))
  })

  it("an id of one kind is not accepted where another kind is expected", () => {
    const teamId = Id.make("team", new Uint8Array(16))
    assert.isTrue(Schema.is(Id.TeamId)(teamId))
    assert.isFalse(Schema.is(Id.RoutineId)(teamId))
    assert.isFalse(Schema.is(Id.TeamId)("team_"))
    assert.isFalse(Schema.is(Id.TeamId)("Platform"))
  })
})
