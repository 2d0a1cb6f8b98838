/** Members of the organization (issue 15): the people who will sign in to the console (issue 17). */
import { Member, Session } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OrgPath, Page, PageParams, pathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const MemberPath = { ...OrgPath, memberId: pathId("MemberId") }

const grantNote = "A role or permission set may grant only permissions the caller holds (403 `/problems/permission-not-grantable`)."

export const MembersGroup = HttpApiGroup.make("members")
  .annotate(OpenApi.Description, "Members of the organization and their access")
  .add(
    HttpApiEndpoint.get("listMembers", "/org/:orgId/members", {
      params: OrgPath,
      query: PageParams,
      success: Page(Member.MemberView)
    })
      .annotate(OpenApi.Summary, "List the organization's members")
      .annotate(OpenApi.Description, "Oldest first. `permissions` is what each member may do now (its role's current set).")
      .pipe(requires("members:manage")),
    HttpApiEndpoint.post("createMember", "/org/:orgId/members", {
      params: OrgPath,
      payload: Member.MemberCreateRequest,
      success: Member.MemberView.pipe(HttpApiSchema.status(201)),
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Add a member")
      .annotate(
        OpenApi.Description,
        "`{ email, name, role }` (a built-in role's name or a custom role's id) or `{ email, name, permissions }`. " +
          "Emails are unique per organization ignoring case (409 `/problems/member-email-taken`). " + grantNote
      )
      .pipe(requires("members:manage")),
    HttpApiEndpoint.get("getMember", "/org/:orgId/members/:memberId", {
      params: MemberPath,
      success: Member.MemberView
    })
      .annotate(OpenApi.Summary, "Read a member")
      .pipe(requires("members:manage")),
    HttpApiEndpoint.patch("updateMember", "/org/:orgId/members/:memberId", {
      params: MemberPath,
      payload: Member.MemberUpdateRequest,
      success: Member.MemberView,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Edit a member's name, access or disabled state")
      .annotate(
        OpenApi.Description,
        "Every field optional. A new `role` replaces the member's explicit permissions and new `permissions` replace its role. " +
          "`disabled: true` keeps the member (for audit) but lets it do nothing. The email cannot change. " + grantNote
      )
      .pipe(requires("members:manage")),
    HttpApiEndpoint.post("resetMemberPassword", "/org/:orgId/members/:memberId/password", {
      params: MemberPath,
      success: Session.PasswordReset
    })
      .annotate(OpenApi.Summary, "Reset a member's password")
      .annotate(
        OpenApi.Description,
        "A new generated password, answered once (only its hash is kept): hand it to the member, who signs in with it and " +
          "may change it. Every session of the member ends. The caller must hold every permission the member holds " +
          "(403 `/problems/permission-not-grantable`), so nobody takes over a more powerful account."
      )
      .pipe(requires("members:manage")),
    HttpApiEndpoint.delete("deleteMember", "/org/:orgId/members/:memberId", {
      params: MemberPath,
      success: HttpApiSchema.NoContent
    })
      .annotate(OpenApi.Summary, "Remove a member")
      .annotate(OpenApi.Description, "Removes the member and its email; audit rows keep its id. To keep the member, disable it instead.")
      .pipe(requires("members:manage"))
  )
  .middleware(Authentication)
