/**
 * Browser sessions (spec 5.1, issue 17): sign in with email and password for a session cookie,
 * read who is signed in, sign out. Not under an organization: the session names its own.
 */
import { Session } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Problem401, Problem403, Problem413, Problem429 } from "./Problem.js"

export const SessionGroup = HttpApiGroup.make("session")
  .annotate(OpenApi.Description, "Browser sessions of the web console: sign in, who am I, sign out")
  .add(
    HttpApiEndpoint.post("signIn", "/session", {
      payload: Session.SignInRequest,
      success: Session.SessionView,
      // 403: an Origin other than this service's (a sign-in form posted from another site)
      error: [Problem401, Problem403, Problem413, Problem429]
    })
      .annotate(OpenApi.Summary, "Sign in")
      .annotate(
        OpenApi.Description,
        "`{ email, password }` -> the session and a `Set-Cookie` of `" + Session.cookieName + "` (HttpOnly, SameSite=Lax, Path=/, " +
          "Secure when the public URL is https). A wrong email and a wrong password get the same 401. Failed sign-ins are " +
          "throttled per account and per client address (429 with Retry-After). Send `csrfToken` as `" + Session.csrfHeader +
          "` on every unsafe request made with the cookie."
      ),
    HttpApiEndpoint.get("getSession", "/session", {
      success: Session.SessionView,
      error: Problem401
    })
      .annotate(OpenApi.Summary, "Read the current session (who am I)")
      .annotate(OpenApi.Description, "401 when the cookie is missing, unknown, expired, or its user disabled."),
    HttpApiEndpoint.put("changePassword", "/session/password", {
      payload: Session.ChangePasswordRequest,
      success: HttpApiSchema.NoContent,
      error: [Problem401, Problem403, Problem413, Problem429]
    })
      .annotate(OpenApi.Summary, "Change your own password")
      .annotate(
        OpenApi.Description,
        "`{ currentPassword, newPassword }` with the session cookie and the `" + Session.csrfHeader + "` header (403 otherwise). " +
          "A wrong current password is a 400 naming `currentPassword` and counts against the sign-in throttle (429 with " +
          "Retry-After). The new password (12 to 1024 characters) signs the member out everywhere, this browser too (204, the " +
          "cookie cleared): sign in again with it."
      ),
    HttpApiEndpoint.delete("signOut", "/session", {
      success: HttpApiSchema.NoContent,
      error: Problem403
    })
      .annotate(OpenApi.Summary, "Sign out")
      .annotate(
        OpenApi.Description,
        "Ends the session and clears the cookie (204, also when no session was open). With a live session the `" +
          Session.csrfHeader + "` header must match it (403 otherwise)."
      )
  )
