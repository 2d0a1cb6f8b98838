/** Roles (issue 15): the built-in roles, read only, and the organization's custom roles. */
import { Role } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OrgPath, Page, PageParams, PathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

// a built-in role's id is its name (`Read%20Only` in a path): any text, answered 404 when unknown
const RolePath = { ...OrgPath, roleId: PathId }

export const RolesGroup = HttpApiGroup.make("roles")
  .annotate(OpenApi.Description, "Built-in and custom roles")
  .add(
    HttpApiEndpoint.get("listRoles", "/org/:orgId/roles", {
      params: OrgPath,
      query: PageParams,
      success: Page(Role.RoleView)
    })
      .annotate(OpenApi.Summary, "List the built-in and custom roles")
      .annotate(
        OpenApi.Description,
        "The four built-in roles first (`builtIn: true`, read only, `id` = name), then custom roles by name. " +
          "A role's `id` is what the `role` field of API keys and members takes."
      )
      .pipe(requires("members:manage")),
    HttpApiEndpoint.post("createRole", "/org/:orgId/roles", {
      params: OrgPath,
      payload: Role.RoleCreateRequest,
      success: Role.RoleView.pipe(HttpApiSchema.status(201)),
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Create a custom role")
      .annotate(
        OpenApi.Description,
        "Names are unique per organization ignoring case, built-in names included (409 `/problems/role-name-taken`). " +
          "Only permissions the caller holds may be given (403 `/problems/permission-not-grantable`)."
      )
      .pipe(requires("members:manage")),
    HttpApiEndpoint.patch("updateRole", "/org/:orgId/roles/:roleId", {
      params: RolePath,
      payload: Role.RoleUpdateRequest,
      success: Role.RoleView,
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Rename a custom role or replace its permissions")
      .annotate(
        OpenApi.Description,
        "Takes effect at once for every API key and member holding the role. Built-in roles answer 409 `/problems/built-in-role-read-only`."
      )
      .pipe(requires("members:manage")),
    HttpApiEndpoint.delete("deleteRole", "/org/:orgId/roles/:roleId", {
      params: RolePath,
      success: HttpApiSchema.NoContent,
      error: Problem409
    })
      .annotate(OpenApi.Summary, "Delete a custom role")
      .annotate(OpenApi.Description, "409 `/problems/role-in-use` while a member or an active API key holds it; 409 for a built-in role.")
      .pipe(requires("members:manage"))
  )
  .middleware(Authentication)
