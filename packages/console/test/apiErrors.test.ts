// the console tsconfig typechecks this file (it reaches the pages' .tsx modules through src/api.ts)
// A body the typed client refuses before sending reads as the server's 400 would: field errors at their fields.
import { ApiKey } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { errorOf } from "../src/api.js"

describe("errorOf", () => {
  it("names each field of a body the client's schema refuses, as a 400", async () => {
    const exit = await Effect.runPromiseExit(
      Schema.encodeUnknownEffect(ApiKey.ApiKeyCreateRequest)({ name: "", role: "Owner", expiresInDays: 0 }, {
        errors: "all"
      })
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = await errorOf((exit as Exit.Failure<unknown, unknown>).cause as Cause.Cause<unknown>)
    expect(error.status).toBe(400)
    expect(Object.keys(error.fieldErrors)).toEqual(expect.arrayContaining(["expiresInDays", "name"]))
    expect(error.detail).not.toMatch(/could not be reached/)
  })
})
