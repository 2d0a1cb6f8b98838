/**
 * The generic delivery body: one CloudEvents 1.0 event in structured content mode (contracts 6),
 * built and validated by the `cloudevents` SDK so that any CloudEvents consumer reads it.
 *
 * Content type: the HTTP protocol binding (3.2 "Structured Content Mode") says the whole event
 * travels as the body with the event format's media type, `application/cloudevents+json`; we add
 * `charset=utf-8` exactly as the SDK's `HTTP.structured` does, so the SDK's own `HTTP.toEvent`
 * recognises the request as structured mode.
 *
 * The body is a pure function of the event, the organization and the public URL: every attempt
 * and every replay of one event carries the same id and the same bytes (contracts 5).
 */
import { Event, type Outbox } from "@image-policy/core"
import { CloudEvent, HTTP } from "cloudevents"
import * as Data from "effect/Data"
import * as Result from "effect/Result"

export const CONTENT_TYPE = "application/cloudevents+json; charset=utf-8"

/** The event could not be expressed as a valid CloudEvent; `issue` names the attribute, never a value. */
export class InvalidCloudEvent extends Data.TaggedError("InvalidCloudEvent")<{
  readonly eventId: string
  readonly issue: string
}> {}

export interface Input {
  readonly orgId: string
  /** Base URL of the service, for `dataschema`. */
  readonly publicUrl: string
  readonly event: Outbox.OutboxEvent
}

/** The validated SDK event (attributes from the core's `Event.cloudEventAttributes`). */
export const make = (input: Input): Result.Result<CloudEvent<unknown>, InvalidCloudEvent> => {
  const attributes = Event.cloudEventAttributes({
    id: input.event.id,
    // the outbox stores the type as text; the catalog is the core's, the SDK validates the rest
    type: input.event.type as Event.EventType,
    orgId: input.orgId,
    subject: input.event.subject,
    time: input.event.time,
    publicUrl: input.publicUrl,
    correlationId: input.event.correlationId
  })
  return Result.try({
    // strict mode: the constructor validates against the CloudEvents 1.0 JSON schema and freezes
    try: () => new CloudEvent<unknown>({ ...attributes, data: input.event.data }, true),
    catch: (error) => new InvalidCloudEvent({ eventId: input.event.id, issue: describe(error) })
  })
}

export interface Structured {
  readonly id: string
  readonly contentType: typeof CONTENT_TYPE
  /** The exact JSON text to sign and send. */
  readonly body: string
}

/** The structured-mode HTTP message: content type and the exact JSON body. */
export const structured = (input: Input): Result.Result<Structured, InvalidCloudEvent> =>
  Result.flatMap(make(input), (event) => {
    const message = HTTP.structured(event)
    if (typeof message.body !== "string") {
      return Result.fail(new InvalidCloudEvent({ eventId: input.event.id, issue: "the SDK did not produce a JSON body" }))
    }
    return Result.succeed({ id: event.id, contentType: CONTENT_TYPE, body: message.body })
  })

// The SDK's messages name attributes ("invalid attribute name", ajv's "/time must match format");
// ajv's `params` could echo values, so only the paths and messages are kept.
const describe = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return "invalid event"
  const details = (error as { errors?: unknown }).errors
  if (Array.isArray(details) && details.length > 0) {
    return details
      .map((d: { instancePath?: unknown; message?: unknown }) => `${String(d.instancePath ?? "")} ${String(d.message ?? "")}`.trim())
      .join("; ")
  }
  const message = (error as { message?: unknown }).message
  // "invalid extension value: <value>": keep what precedes the value
  return typeof message === "string" ? message.split(/[:\n]/)[0]! : "invalid event"
}
