import { Api } from "@image-policy/client/api/Api"
import { Workflows } from "@image-policy/core"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Reports } = Workflows

export const ReportsHandlers = HttpApiBuilder.group(Api, "reports", (handlers) =>
  handlers
    .handle("getComplianceReport", () => withCaller((c) => Reports.getComplianceReport(c)))
    .handle("getComplianceHistory", ({ query }) => withCaller((c) => Reports.getComplianceHistory(c, query))))
