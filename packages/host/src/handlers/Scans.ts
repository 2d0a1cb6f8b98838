import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Remediation, Scans } = Workflows

export const ScansHandlers = HttpApiBuilder.group(Api, "scans", (handlers) =>
  handlers
    .handle("listFindings", ({ path, urlParams: { branch, ...page } }) =>
      withCaller((c) =>
        Effect.map(
          Scans.findings(c, path.repositoryId as Id.RepositoryId, { branch }, page),
          ({ nextCursor, ...rest }) => nextCursor === null ? rest : { ...rest, nextCursor }
        )
      ))
    .handle("listScans", ({ path, urlParams: { branch, ...page } }) =>
      withCaller((c) => Effect.map(Scans.listScans(c, path.repositoryId as Id.RepositoryId, { branch }, page), toPage)))
    .handle("requestScans", ({ path, payload }) =>
      withCaller((c) => Scans.requestScans(c, path.repositoryId as Id.RepositoryId, payload)))
    .handle("listRemediationRequests", ({ path, urlParams }) =>
      withCaller((c) => Effect.map(Remediation.listRemediations(c, path.repositoryId as Id.RepositoryId, urlParams), toPage)))
)
