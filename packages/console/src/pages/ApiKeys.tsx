/**
 * Settings -> Automation -> API keys (spec 5.6-5.7): the organization's keys (name, access, expiry,
 * last use, status), paged; create one with a role or explicit permissions and an expiry, its
 * secret shown once; revoke one after a confirmation.
 */
import { ApiKey, Role } from "@image-policy/core"
import { useRef, useState } from "react"
import { type ApiError, useMutation, usePaged } from "../api.js"
import { ConfirmDialog } from "../components/ConfirmDialog.js"
import { DataTable } from "../components/DataTable.js"
import { EmptyState } from "../components/EmptyState.js"
import { Field } from "../components/Field.js"
import { Form, useForm } from "../components/Form.js"
import { Page } from "../components/Page.js"
import { SecretOnce } from "../components/SecretOnce.js"
import { useToast } from "../components/Toast.js"
import { useSession } from "../session.js"
import { accessBody, AccessCell, accessErrors, AccessPicker, type AccessValue, useRoles } from "./settings/access.js"
import "./settings/settings.css"
import { errorAt, fieldError, formatTime, localError } from "./settings/validate.js"

const title = "API keys"
const description = "Keys let automation call the API (header x-api-key). Each holds a role or an explicit set of permissions."

export default function ApiKeys() {
  const { can } = useSession()
  if (!can("api-keys:manage")) {
    return (
      <Page title={title} description={description}>
        <div className="alert alert--info">
          <p>Only members with the permission to manage API keys (api-keys:manage) can see and change them.</p>
        </div>
      </Page>
    )
  }
  return <ApiKeysManager />
}

type Expiry = "30" | "90" | "180" | "365" | "custom" | "unlimited"

const statusBadge = (status: ApiKey.ApiKeyStatus) => {
  const kind = status === "active" ? "badge--success" : status === "expired" ? "badge--warning" : "badge--danger"
  return <span className={`badge ${kind}`}>{status === "active" ? "Active" : status === "expired" ? "Expired" : "Revoked"}</span>
}

function ApiKeysManager() {
  const toast = useToast()
  const { roles } = useRoles()
  const keys = usePaged(
    (api, orgId, cursor) => api.apiKeys.listApiKeys({ params: { orgId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    []
  )
  const [creating, setCreating] = useState(false)
  const [created, setCreated] = useState<ApiKey.ApiKeyCreated | undefined>()
  const [revoking, setRevoking] = useState<ApiKey.ApiKeyView | undefined>()
  const createButton = useRef<HTMLButtonElement>(null)

  const form = useForm({ name: "", expiry: "90" as Expiry, customDays: "" })
  const initialAccess: AccessValue = { mode: "role", role: "", permissions: [] }
  const [access, setAccess] = useState<AccessValue>(initialAccess)
  const [checkError, setCheckError] = useState<ApiError | undefined>()

  const create = useMutation((api, orgId, payload: ApiKey.ApiKeyCreateRequest) => api.apiKeys.createApiKey({ params: { orgId }, payload }))
  const revoke = useMutation((api, orgId, keyId: ApiKey.ApiKeyView["id"]) => api.apiKeys.revokeApiKey({ params: { orgId, keyId } }))
  const error = checkError ?? create.error

  const expiresInDays = (): number | null | "invalid" => {
    const e = form.values.expiry
    if (e === "unlimited") return null
    if (e !== "custom") return Number(e)
    const text = form.values.customDays.trim()
    return /^\d+$/.test(text) ? Number(text) : "invalid"
  }

  const submit = async () => {
    setCheckError(undefined)
    const days = expiresInDays()
    const local = localError({
      name: fieldError(Role.RoleDisplayName, form.values.name),
      ...accessErrors(access),
      expiresInDays: days === "invalid"
        ? "Enter a whole number of days from 1 to 365."
        : fieldError(ApiKey.ExpiresInDays, days)
    })
    if (local !== undefined || days === "invalid") {
      setCheckError(local)
      create.reset()
      return { ok: false }
    }
    const payload = { name: form.values.name.trim(), ...accessBody(access), expiresInDays: days } as ApiKey.ApiKeyCreateRequest
    const outcome = await create.run(payload)
    if (outcome.ok) {
      setCreated(outcome.value)
      setCreating(false)
      form.reset()
      setAccess(initialAccess)
      keys.reload()
      toast.show(`API key “${outcome.value.name}” created`)
    }
    return outcome
  }

  const closeForm = () => {
    setCreating(false)
    setCheckError(undefined)
    create.reset()
    requestAnimationFrame(() => createButton.current?.focus())
  }

  return (
    <Page
      title={title}
      description={description}
      actions={!creating && created === undefined
        ? (
          <button ref={createButton} type="button" className="button button--primary" onClick={() => setCreating(true)}>
            Create API key
          </button>
        )
        : undefined}
    >
      {created !== undefined
        ? (
          <SecretOnce
            label={`Secret of the new key “${created.name}”`}
            secret={created.secret}
            onDone={() => {
              setCreated(undefined)
              requestAnimationFrame(() => createButton.current?.focus())
            }}
          />
        )
        : null}

      {creating
        ? (
          <section className="card" aria-labelledby="create-key-title">
            <h2 id="create-key-title" className="form-card__title">New API key</h2>
            <Form
              className="form form--wide"
              aria-label="New API key"
              submitLabel="Create key"
              error={error}
              pending={create.pending}
              onSubmit={submit}
              actions={<button type="button" className="button" onClick={closeForm}>Cancel</button>}
            >
              <Field
                label="Name"
                required
                autoComplete="off"
                hint="What the key is for, e.g. “CI pipeline”."
                {...form.input("name")}
                error={errorAt(error, "name")}
              />
              <AccessPicker
                value={access}
                onChange={setAccess}
                roles={roles}
                roleError={errorAt(error, "role")}
                permissionsError={errorAt(error, "permissions")}
              />
              <div className="expiry-row">
                <Field
                  label="Expires"
                  error={form.values.expiry === "custom" ? undefined : errorAt(error, "expiresInDays")}
                  hint="After this the key stops working."
                >
                  {(control) => (
                    <select
                      className="input"
                      name="expiry"
                      {...control}
                      value={form.values.expiry}
                      onChange={form.input("expiry").onChange}
                    >
                      <option value="30">In 30 days</option>
                      <option value="90">In 90 days</option>
                      <option value="180">In 180 days</option>
                      <option value="365">In 365 days</option>
                      <option value="custom">Custom number of days…</option>
                      <option value="unlimited">Never (unlimited)</option>
                    </select>
                  )}
                </Field>
                {form.values.expiry === "custom"
                  ? (
                    <Field
                      label="Days until expiry"
                      required
                      type="number"
                      inputMode="numeric"
                      min={1}
                      max={365}
                      hint="1 to 365."
                      {...form.input("customDays")}
                      error={errorAt(error, "expiresInDays")}
                    />
                  )
                  : null}
              </div>
              {form.values.expiry === "unlimited"
                ? (
                  <div className="alert alert--warning">
                    <p>A key without expiry works until it is revoked. Prefer an expiry and create a new key in time.</p>
                  </div>
                )
                : null}
            </Form>
          </section>
        )
        : null}

      <DataTable
        caption="API keys"
        paged={keys}
        rowKey={(k) => k.id}
        empty={<EmptyState title="No API keys yet">Create a key for each tool that calls the API.</EmptyState>}
        columns={[
          {
            header: "Name",
            cell: (k) => (
              <div className="cell-stack">
                <span className="key-name">{k.name}</span>
                <code className="key-prefix">{k.prefix}…</code>
              </div>
            )
          },
          { header: "Access", cell: (k) => <AccessCell access={k} roles={roles} /> },
          {
            header: "Expires",
            cell: (k) => k.expiresAt === null ? "Never" : <time dateTime={k.expiresAt}>{formatTime(k.expiresAt)}</time>
          },
          {
            header: "Last used",
            cell: (k) =>
              k.lastUsedAt === null ? <span className="muted">Never</span> : <time dateTime={k.lastUsedAt}>{formatTime(k.lastUsedAt)}</time>
          },
          {
            header: "Status",
            cell: (k) => (
              <div className="cell-stack">
                {statusBadge(k.status)}
                {k.revokedAt !== null ? <span className="cell-sub">{formatTime(k.revokedAt)}</span> : null}
              </div>
            )
          },
          {
            header: "Actions",
            kind: "actions",
            visuallyHiddenHeader: true,
            cell: (k) =>
              k.status !== "revoked"
                ? (
                  <button type="button" className="button button--small" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </button>
                )
                : null
          }
        ]}
      />

      <ConfirmDialog
        target={revoking}
        title="Revoke this API key?"
        confirmLabel="Revoke key"
        danger
        mutation={revoke}
        onClose={() => setRevoking(undefined)}
        onConfirm={(key) => revoke.run(key.id)}
        onDone={(_, key) => {
          toast.show(`API key “${key.name}” revoked`)
          keys.reload()
        }}
      >
        <p>
          <strong>{revoking?.name}</strong>{" "}
          (<code>{revoking?.prefix}…</code>) stops working at once: every request with it is refused. This cannot be undone.
        </p>
      </ConfirmDialog>
    </Page>
  )
}
