// PLACEHOLDER (issue 17 base): the session workflows replace this before anything lands on main.
import { Api } from "@image-policy/client/api/Api"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Problems from "../http/Problems.js"

const notSignedIn = () => Effect.fail(Problems.make({ status: 401, type: "/problems/unauthenticated", detail: "not signed in" }))

export const SessionHandlers = HttpApiBuilder.group(Api, "session", (handlers) =>
  handlers
    .handle("signIn", notSignedIn)
    .handle("getSession", notSignedIn)
    .handle("signOut", () => Effect.void))
