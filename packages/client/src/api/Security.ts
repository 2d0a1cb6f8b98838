/**
 * `x-api-key` and session cookie security (spec 5, 5.1) and the permissions each operation requires (contracts 3). The
 * required permissions are an annotation of the endpoint, so the OpenAPI document
 * (`x-required-permissions`) and the check at run time (http/Auth.ts, which reads the annotation
 * of the endpoint it wraps) read the same value.
 */
import { type Permission, Session, type Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import { type HttpApiEndpoint, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Problem401, Problem403, Problem404, Problem429 } from "./Problem.js"

export class RequiredPermissions extends Context.Service<RequiredPermissions, ReadonlyArray<Permission.Permission>>()(
  "@image-policy/host/RequiredPermissions"
) {}

/** Annotates an endpoint with the permissions it needs (checked after the key and the organization). */
export const requires = (...permissions: ReadonlyArray<Permission.Permission>) => <E extends HttpApiEndpoint.Constraint>(endpoint: E): E =>
  (endpoint as unknown as HttpApiEndpoint.Top)
    .annotate(RequiredPermissions, permissions)
    .annotate(OpenApi.Override, { "x-required-permissions": permissions }) as unknown as E

/**
 * The built-in roles an operation needs by name, beyond its permissions (spec 5.8: creating webhooks
 * needs Owner or Security Administrator). Checked after the permissions; a custom role or an
 * explicit permission set never passes, whatever it holds. OpenAPI: `x-required-roles`.
 */
export class RequiredRoles extends Context.Service<RequiredRoles, ReadonlyArray<Permission.RoleName>>()(
  "@image-policy/host/RequiredRoles"
) {}

/** Annotates an endpoint with the built-in roles it needs (one of them), in addition to `requires`. */
export const requiresRole = (...roles: ReadonlyArray<Permission.RoleName>) => <E extends HttpApiEndpoint.Constraint>(endpoint: E): E => {
  const top = endpoint as unknown as HttpApiEndpoint.Top
  // one Override per endpoint: keep what `requires` put there
  const override = Context.getOrUndefined(top.annotations, OpenApi.Override) ?? {}
  return top.annotate(RequiredRoles, roles).annotate(OpenApi.Override, { ...override, "x-required-roles": roles }) as unknown as E
}

/** The authenticated caller of an organization route: who acts, in which organization, with which permissions. */
export class CurrentCaller extends Context.Service<
  CurrentCaller,
  Workflows.Caller.Caller & { readonly permissions: ReadonlyArray<Permission.Permission> }
>()("@image-policy/host/CurrentCaller") {}

/** Every organization route: the key, its organization, its permissions, its rate limit, then the body. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentCaller }>()(
  "Authentication",
  {
    error: [Problem401, Problem403, Problem404, Problem429],
    // either scheme authenticates; both reach the same permission checks in the same order (host http/Auth.ts)
    security: {
      apiKey: HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }).pipe(
        HttpApiSecurity.annotate(OpenApi.Description, "API key of a service account (automation)")
      ),
      session: HttpApiSecurity.apiKey({ in: "cookie", key: Session.cookieName }).pipe(
        HttpApiSecurity.annotate(
          OpenApi.Description,
          "Session cookie of the web console (POST /api/v1/session); unsafe methods also need the `x-csrf-token` header"
        )
      )
    }
  }
) {}
