import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Remediation, Scans } = Workflows

export const ScansHandlers = HttpApiBuilder.group(Api, "scans", (handlers) =>
  handlers
    .handle("listFindings", ({ params, query: { branch, ...page } }) =>
      withCaller((c) =>
        Effect.map(Scans.listFindings(c, params.repositoryId, { branch }, page), toPage)
      ))
    .handle("listScans", ({ params, query: { branch, ...page } }) =>
      withCaller((c) =>
        Effect.map(Scans.listScans(c, params.repositoryId, { branch }, page), toPage)
      ))
    .handle("requestScans", ({ params, payload }) =>
      withCaller((c) => Scans.requestScans(c, params.repositoryId, payload)))
    .handle("listRemediationRequests", ({ params, query }) =>
      withCaller((c) =>
        Effect.map(Remediation.listRemediationRequests(c, params.repositoryId, query), toPage)
      )))
