/** Routes without an API key: the OpenAPI contract and the event type catalog (spec 4, 9; contracts 5, 6). */
import { Event } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { PathId } from "./Common.js"
import { Problem404 } from "./Problem.js"

export const EventTypeView = Schema.Struct({
  type: Event.EventType,
  family: Schema.Literals(["policy", "snooze", "remediation", "webhook"]),
  description: Schema.String,
  dataSchema: Schema.ObjectKeyword.annotate({ description: "JSON Schema of the event's `data`" })
})

export const MetaGroup = HttpApiGroup.make("meta")
  .annotate(OpenApi.Description, "This contract and the event type catalog (no key)")
  .add(
    HttpApiEndpoint.get("openApi", "/openapi.json", {
      success: Schema.ObjectKeyword.annotate({ description: "This OpenAPI 3.1 document" })
    })
      .annotate(OpenApi.Summary, "Read this OpenAPI document"),
    HttpApiEndpoint.get("listEventTypes", "/event-types", {
      success: Schema.Struct({ items: Schema.Array(EventTypeView) })
    })
      .annotate(OpenApi.Summary, "List the event types"),
    HttpApiEndpoint.get("getEventType", "/event-types/:type", {
      params: { type: PathId },
      success: EventTypeView,
      error: Problem404
    })
      .annotate(OpenApi.Summary, "Read one event type")
  )
