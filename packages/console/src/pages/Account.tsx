/**
 * Your account: who you are in this organization, and changing your own password (the current one
 * first, then the new one twice). A change signs you out everywhere, this browser too, so the page
 * ends at sign-in with a notice.
 */
import { Session } from "@image-policy/core"
import { useState } from "react"
import { type ApiError, useMutation } from "../api.js"
import { Field } from "../components/Field.js"
import { Form, useForm } from "../components/Form.js"
import { Page } from "../components/Page.js"
import { useSession } from "../session.js"
import "./settings/settings.css"
import { errorAt, fieldError, localError } from "./settings/validate.js"

export default function Account() {
  const { passwordChanged, session } = useSession()
  const form = useForm({ currentPassword: "", newPassword: "", confirmPassword: "" })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const change = useMutation((api, _orgId, payload: Session.ChangePasswordRequest) => api.session.changePassword({ payload }))
  const error = checkError ?? change.error
  return (
    <Page title="Your account" description="Who you are in this organization, and your password.">
      <section className="card" aria-labelledby="account-who">
        <h2 id="account-who">{session.user.name}</h2>
        <dl className="facts">
          <dt>Email</dt>
          <dd>{session.user.email}</dd>
          <dt>Organization</dt>
          <dd>{session.organization.name}</dd>
          <dt>Role</dt>
          <dd>{session.user.role ?? "Explicit permissions"}</dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="account-password">
        <h2 id="account-password">Change your password</h2>
        <p className="muted">Changing it signs you out everywhere, here too: sign in again with the new one.</p>
        <Form
          className="form"
          aria-label="Change your password"
          submitLabel="Change password"
          error={error}
          pending={change.pending}
          onSubmit={async () => {
            const { confirmPassword, currentPassword, newPassword } = form.values
            const local = localError({
              currentPassword: currentPassword === "" ? "Required." : undefined,
              newPassword: fieldError(Session.NewPassword, newPassword),
              confirmPassword: confirmPassword !== newPassword ? "Does not match the new password." : undefined
            })
            setCheckError(local)
            if (local !== undefined) {
              change.reset()
              return { ok: false }
            }
            const outcome = await change.run({ currentPassword, newPassword })
            if (outcome.ok) passwordChanged()
            return outcome
          }}
        >
          <Field
            label="Current password"
            type="password"
            required
            autoComplete="current-password"
            {...form.input("currentPassword")}
            error={errorAt(error, "currentPassword")}
          />
          <Field
            label="New password"
            type="password"
            required
            autoComplete="new-password"
            hint={`At least ${Session.minPasswordLength} characters.`}
            {...form.input("newPassword")}
            error={errorAt(error, "newPassword")}
          />
          <Field
            label="New password again"
            type="password"
            required
            autoComplete="new-password"
            {...form.input("confirmPassword")}
            error={errorAt(error, "confirmPassword")}
          />
        </Form>
      </section>
    </Page>
  )
}
