import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Members } = Workflows

export const MembersHandlers = HttpApiBuilder.group(Api, "members", (handlers) =>
  handlers
    .handle("listMembers", ({ query }) => withCaller((c) => Effect.map(Members.listMembers(c, query), toPage)))
    .handle("createMember", ({ payload }) => withCaller((c) => Members.createMember(c, payload)))
    .handle("getMember", ({ params }) => withCaller((c) => Members.getMember(c, params.memberId)))
    .handle("updateMember", ({ params, payload }) => withCaller((c) => Members.updateMember(c, params.memberId, payload)))
    .handle("resetMemberPassword", ({ params }) => withCaller((c) => Members.resetPassword(c, params.memberId)))
    .handle("deleteMember", ({ params }) => withCaller((c) => Members.deleteMember(c, params.memberId))))
