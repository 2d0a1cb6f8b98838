/**
 * `x-api-key` security (spec 5) and the permissions each operation requires (contracts 3). The
 * required permissions are an annotation of the endpoint, so the OpenAPI document
 * (`x-required-permissions`) and the check at run time read the same value.
 */
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import type { Permission, Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import { Problem } from "./Problem.js"

export class RequiredPermissions extends Context.Tag("@image-policy/host/RequiredPermissions")<
  RequiredPermissions,
  ReadonlyArray<Permission.Permission>
>() {}

/** Annotates an endpoint with the permissions it needs (checked after the key and the organization). */
export const requires = (...permissions: ReadonlyArray<Permission.Permission>) =>
<E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E): E =>
  (endpoint as any)
    .annotate(RequiredPermissions, permissions)
    .annotate(OpenApi.Override, { "x-required-permissions": permissions }) as E

/** The authenticated caller of an organization route: who acts, in which organization, with which permissions. */
export class CurrentCaller extends Context.Tag("@image-policy/host/CurrentCaller")<
  CurrentCaller,
  Workflows.Caller.Caller & { readonly permissions: ReadonlyArray<Permission.Permission> }
>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Problem,
  provides: CurrentCaller,
  security: { apiKey: HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }) }
}) {}
