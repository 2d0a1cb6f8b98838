/** Routes without an API key: the OpenAPI contract and the event type catalog (spec 4, 9; contracts 5, 6). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Event } from "@image-policy/core"
import * as Schema from "effect/Schema"
import { PathId } from "./Common.js"
import { Problem404 } from "./Problem.js"

export const EventTypeView = Schema.Struct({
  type: Event.EventType,
  family: Schema.Literal("policy", "snooze", "remediation", "webhook"),
  description: Schema.String,
  dataSchema: Schema.Object.annotations({ description: "JSON Schema of the event's `data`" })
})

export const MetaGroup = HttpApiGroup.make("meta")
  .add(
    HttpApiEndpoint.get("openApi", "/openapi.json")
      .addSuccess(Schema.Object.annotations({ description: "This OpenAPI 3.1 document" }))
  )
  .add(
    HttpApiEndpoint.get("listEventTypes", "/event-types")
      .addSuccess(Schema.Struct({ items: Schema.Array(EventTypeView) }))
  )
  .add(
    HttpApiEndpoint.get("getEventType", "/event-types/:type")
      .setPath(Schema.Struct({ type: PathId }))
      .addSuccess(EventTypeView)
      .addError(Problem404)
  )
