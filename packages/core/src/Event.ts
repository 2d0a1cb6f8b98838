/**
 * The event catalog (contracts 6) and event data builders. Each type's data is a closed schema:
 * building an event decodes the given object through it and DROPS every other key, so a caller
 * cannot leak a credential, an e-mail address, an actor id, a branch or file path or a raw error
 * into a payload by accident (spec 6, "excludes ...").
 */
import * as JsonSchema from "effect/JsonSchema"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

const Timestamp = Schema.String.annotate({ description: "ISO 8601 date-time" })

const SnoozeData = Schema.Struct({
  snooze_request_id: Schema.String,
  previous_status: Schema.NullOr(Schema.Literals(["pending", "approved", "rejected", "expired"])),
  current_status: Schema.Literals(["pending", "approved", "rejected", "expired"]),
  action: Schema.Literals(["created", "reviewed", "status_changed", "reopened"]),
  repository_id: Schema.String,
  changed_at: Timestamp
})

const GroupData = Schema.Struct({
  policy_group_id: Schema.String,
  action: Schema.Literals(["published", "updated"]),
  mapping_count: Schema.Int,
  changed_at: Timestamp
})

const MappingData = Schema.Struct({
  mapping_id: Schema.String,
  policy_group_id: Schema.String,
  phase_id: Schema.String,
  from_image: Schema.String,
  to_image: Schema.String,
  platform_scope: Schema.String,
  action: Schema.Literals(["created", "updated", "removed"]),
  changed_at: Timestamp
})

const RemediationData = Schema.Struct({
  repository_id: Schema.String,
  pull_request_url: Schema.optionalKey(Schema.String),
  action: Schema.Literals(["created", "failed"]),
  /** A machine-readable code, never the provider's raw error text. */
  failure_kind: Schema.optionalKey(Schema.Literals(["provider-unavailable", "permission-denied", "conflict", "rate-limited"])),
  changed_at: Timestamp
})

const TestData = Schema.Struct({ webhook_id: Schema.String, action: Schema.Literal("test"), changed_at: Timestamp })

export type Family = "policy" | "snooze" | "remediation" | "webhook"

interface Definition {
  readonly family: Family
  readonly description: string
  readonly data: Schema.Codec<any, any>
  readonly subjectKind: string
  readonly subjectField: string
}

const definitions = {
  "service.policy_group.published": {
    family: "policy",
    description: "A policy group's draft was published.",
    data: GroupData,
    subjectKind: "policy_group",
    subjectField: "policy_group_id"
  },
  "service.policy_group.updated": {
    family: "policy",
    description: "A policy group's settings or external phase changed its published policy.",
    data: GroupData,
    subjectKind: "policy_group",
    subjectField: "policy_group_id"
  },
  "service.policy_mapping.created": {
    family: "policy",
    description: "A mapping was created.",
    data: MappingData,
    subjectKind: "policy_mapping",
    subjectField: "mapping_id"
  },
  "service.policy_mapping.updated": {
    family: "policy",
    description: "A mapping was changed.",
    data: MappingData,
    subjectKind: "policy_mapping",
    subjectField: "mapping_id"
  },
  "service.policy_mapping.removed": {
    family: "policy",
    description: "A mapping was removed.",
    data: MappingData,
    subjectKind: "policy_mapping",
    subjectField: "mapping_id"
  },
  "service.snooze_request.created": {
    family: "snooze",
    description: "A snooze request was created (pending).",
    data: SnoozeData,
    subjectKind: "exception_review",
    subjectField: "snooze_request_id"
  },
  "service.snooze_request.reviewed": {
    family: "snooze",
    description: "A snooze request was approved or rejected.",
    data: SnoozeData,
    subjectKind: "exception_review",
    subjectField: "snooze_request_id"
  },
  "service.snooze_request.status_changed": {
    family: "snooze",
    description: "A snooze request changed status on its own (an approval expired).",
    data: SnoozeData,
    subjectKind: "exception_review",
    subjectField: "snooze_request_id"
  },
  "service.snooze_request.reopened": {
    family: "snooze",
    description: "A rejected or expired snooze request was reopened.",
    data: SnoozeData,
    subjectKind: "exception_review",
    subjectField: "snooze_request_id"
  },
  "service.remediation_pull_request.created": {
    family: "remediation",
    description: "A remediation pull or merge request was opened or updated.",
    data: RemediationData,
    subjectKind: "repository",
    subjectField: "repository_id"
  },
  "service.remediation_pull_request.failed": {
    family: "remediation",
    description: "Opening a remediation pull or merge request failed.",
    data: RemediationData,
    subjectKind: "repository",
    subjectField: "repository_id"
  },
  "service.webhook.test": {
    family: "webhook",
    description: "A test delivery requested from a webhook destination.",
    data: TestData,
    subjectKind: "webhook",
    subjectField: "webhook_id"
  }
} as const satisfies Record<string, Definition>

export type EventType = keyof typeof definitions
export const eventTypes = Object.keys(definitions) as ReadonlyArray<EventType>
export const EventType = Schema.Literals(eventTypes as [EventType, ...Array<EventType>])

export type EventData<T extends EventType> = Schema.Schema.Type<(typeof definitions)[T]["data"]>

export const familyOf = (type: EventType): Family => definitions[type].family

/** Keys that must never appear in event data (spec 6); the closed schemas make them impossible. */
export const forbiddenDataKeys = [
  "token",
  "secret",
  "signing_secret",
  "api_key",
  "password",
  "credentials",
  "endpoint_url",
  "email",
  "actor_id",
  "actor",
  "service_account_id",
  "api_key_id",
  "branch",
  "branch_name",
  "path",
  "file_path",
  "error",
  "raw_error",
  "stack",
  "metadata"
] as const

export interface EventDraft {
  readonly type: EventType
  readonly subject: string
  readonly data: Record<string, unknown>
}

export class InvalidEventData extends Schema.TaggedError<InvalidEventData>()("InvalidEventData", {
  type: Schema.String,
  issue: Schema.String
}) {
  override get message() {
    return `invalid data for event ${this.type}: ${this.issue}`
  }
}

/** Builds an event of `type` from `data`, keeping only the type's documented keys. */
export const buildEvent = <T extends EventType>(
  type: T,
  data: EventData<T> | Record<string, unknown>
): Result.Result<EventDraft, InvalidEventData> => {
  const def: Definition = definitions[type]
  return Schema.decodeUnknownResult(def.data, { onExcessProperty: "ignore" })(data).pipe(
    Result.mapError((e) => new InvalidEventData({ type, issue: e.message })),
    Result.map((clean: Record<string, unknown>) => ({
      type,
      subject: `${def.subjectKind}/${String(clean[def.subjectField])}`,
      data: clean
    }))
  )
}

export interface CatalogEntry {
  readonly type: EventType
  readonly family: Family
  readonly description: string
  readonly dataSchema: JsonSchema.JsonSchema
}

/**
 * A data schema as a draft-07 JSON Schema document, as Effect 3 wrote it: closed objects
 * (`additionalProperties: false`: the data carries only its documented keys) and `$schema` first.
 */
const dataSchemaOf = (schema: Schema.Top): JsonSchema.JsonSchema => {
  const document = JsonSchema.toDocumentDraft07(Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" }))
  const definitions = Object.keys(document.definitions).length > 0 ? { definitions: document.definitions } : {}
  return { $schema: JsonSchema.META_SCHEMA_URI_DRAFT_07, ...document.schema, ...definitions }
}

export const catalog = (): ReadonlyArray<CatalogEntry> =>
  eventTypes.map((type) => ({
    type,
    family: definitions[type].family,
    description: definitions[type].description,
    dataSchema: dataSchemaOf(definitions[type].data)
  }))

export const SCHEMA_VERSION = "1"

/** CloudEvents 1.0 attributes of an event (contracts 6); extension names are lowercase alphanumerics. */
export const cloudEventAttributes = (input: {
  readonly id: string
  readonly type: EventType
  readonly orgId: string
  readonly subject: string
  readonly time: string
  readonly publicUrl: string
  readonly correlationId: string
}) => ({
  specversion: "1.0" as const,
  id: input.id,
  source: `/api/v1/org/${input.orgId}`,
  type: input.type,
  subject: input.subject,
  time: input.time,
  datacontenttype: "application/json" as const,
  dataschema: `${input.publicUrl.replace(/\/+$/, "")}/api/v1/event-types/${input.type}`,
  orgid: input.orgId,
  correlationid: input.correlationId,
  schemaversion: SCHEMA_VERSION
})
