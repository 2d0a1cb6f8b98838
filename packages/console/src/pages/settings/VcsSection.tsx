/**
 * Organization -> VCS connections: the provider accounts repositories are read through. List;
 * connect one (token and push secret sealed, never shown again); per connection: details, switch
 * off or on, replace the token, delete.
 */
import { VcsConnection } from "@image-policy/core"
import { useEffect, useRef, useState } from "react"
import { type ApiError, useMutation, usePaged, useQuery } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { DataTable } from "../../components/DataTable.js"
import { EmptyState } from "../../components/EmptyState.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { Loading } from "../../components/Loading.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { errorAt, fieldError, localError } from "./validate.js"

type Connection = VcsConnection.VcsConnection
type ConnectionId = Connection["id"]

const providerName = (p: VcsConnection.VcsProvider) => p === "github" ? "GitHub" : "GitLab"
const statusBadge = (s: VcsConnection.ConnectionStatus) =>
  s === "active"
    ? <span className="badge badge--success">Active</span>
    : s === "inactive"
    ? <span className="badge">Switched off</span>
    : <span className="badge badge--danger">Error</span>

const useFocusOnMount = () => {
  const ref = useRef<HTMLHeadingElement>(null)
  useEffect(() => ref.current?.focus(), [])
  return ref
}

export function VcsSection() {
  const { can } = useSession()
  const manage = can("repositories:manage")
  const toast = useToast()
  const connections = usePaged(
    (api, orgId, cursor) => api.organization.listVcsConnections({ params: { orgId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    []
  )
  const [adding, setAdding] = useState(false)
  const [open, setOpen] = useState<Connection | undefined>()
  const [deleting, setDeleting] = useState<Connection | undefined>()
  const addButton = useRef<HTMLButtonElement>(null)
  const remove = useMutation((api, orgId, id: ConnectionId) =>
    api.vcsConnections.deleteVcsConnection({ params: { orgId, connectionId: id } })
  )
  const close = () => {
    setAdding(false)
    setOpen(undefined)
    requestAnimationFrame(() => addButton.current?.focus())
  }
  return (
    <section className="settings-section" aria-labelledby="vcs-title">
      <div className="settings-section__header">
        <h2 id="vcs-title">VCS connections</h2>
        {manage && !adding
          ? (
            <button ref={addButton} type="button" className="button button--primary" onClick={() => setAdding(true)}>
              Connect a provider
            </button>
          )
          : null}
      </div>
      <p className="settings-section__intro">
        GitHub and GitLab accounts the service reads repositories through and opens remediation requests with.
      </p>
      {adding
        ? (
          <ConnectionCreator
            onDone={(c) => {
              toast.show(`Connected ${providerName(c.provider)} account “${c.externalAccountName}”`)
              connections.reload()
              close()
            }}
            onCancel={close}
          />
        )
        : null}
      {open !== undefined
        ? (
          <ConnectionDetails
            key={open.id}
            connection={open}
            onChanged={() => connections.reload()}
            onClose={close}
          />
        )
        : null}
      <DataTable
        caption="VCS connections"
        paged={connections}
        rowKey={(c) => c.id}
        empty={
          <EmptyState title="No VCS connections yet">
            {manage ? "Connect a GitHub or GitLab account to onboard repositories." : null}
          </EmptyState>
        }
        columns={[
          { header: "Provider", cell: (c) => providerName(c.provider) },
          { header: "Account", cell: (c) => <span className="key-name">{c.externalAccountName}</span> },
          { header: "Status", cell: (c) => statusBadge(c.status) },
          {
            header: "Actions",
            kind: "actions",
            visuallyHiddenHeader: true,
            cell: (c) => (
              <>
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => {
                    setAdding(false)
                    setOpen(c)
                  }}
                  aria-label={`${manage ? "Manage" : "Details of"} ${c.externalAccountName}`}
                >
                  {manage ? "Manage" : "Details"}
                </button>
                {manage
                  ? (
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => setDeleting(c)}
                      aria-label={`Delete ${c.externalAccountName}`}
                    >
                      Delete
                    </button>
                  )
                  : null}
              </>
            )
          }
        ]}
      />
      <ConfirmDialog
        target={deleting}
        title="Delete this VCS connection?"
        confirmLabel="Delete connection"
        danger
        mutation={remove}
        onClose={() => setDeleting(undefined)}
        onConfirm={(connection) => remove.run(connection.id)}
        onDone={(_, connection) => {
          toast.show(`Connection “${connection.externalAccountName}” deleted`)
          if (open?.id === connection.id) setOpen(undefined)
          connections.reload()
        }}
      >
        <p>
          The connection to <strong>{deleting?.externalAccountName}</strong>{" "}
          and its stored token are deleted. A connection that tracked repositories or an external policy phase read through cannot be
          deleted.
        </p>
      </ConfirmDialog>
    </section>
  )
}

function ConnectionCreator({ onDone, onCancel }: { readonly onDone: (c: Connection) => void; readonly onCancel: () => void }) {
  const form = useForm({ provider: "github", externalAccountName: "", baseUrl: "", token: "", webhookSecret: "" })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const create = useMutation((api, orgId, payload: VcsConnection.CreateVcsConnectionRequest) =>
    api.vcsConnections.createVcsConnection({ params: { orgId }, payload })
  )
  const error = checkError ?? create.error
  const headingRef = useFocusOnMount()
  const v = form.values
  const submit = async () => {
    setCheckError(undefined)
    const local = localError({
      externalAccountName: v.externalAccountName.trim() === "" ? "Required." : undefined,
      baseUrl: v.baseUrl.trim() === "" ? undefined : fieldError(VcsConnection.BaseUrl, v.baseUrl.trim()),
      token: fieldError(VcsConnection.Token, v.token),
      webhookSecret: v.webhookSecret === "" ? undefined : fieldError(VcsConnection.WebhookSecret, v.webhookSecret)
    })
    if (local !== undefined) {
      setCheckError(local)
      create.reset()
      return { ok: false }
    }
    const outcome = await create.run({
      provider: v.provider as VcsConnection.VcsProvider,
      externalAccountName: v.externalAccountName.trim(),
      ...(v.baseUrl.trim() !== "" ? { baseUrl: v.baseUrl.trim() } : {}),
      token: v.token,
      ...(v.webhookSecret !== "" ? { webhookSecret: v.webhookSecret } : {})
    })
    if (outcome.ok) onDone(outcome.value)
    return outcome
  }
  return (
    <section className="card" aria-labelledby="vcs-create-title">
      <h3 id="vcs-create-title" className="form-card__title" tabIndex={-1} ref={headingRef}>Connect a provider account</h3>
      <Form
        aria-label="Connect a provider account"
        submitLabel="Connect"
        error={error}
        pending={create.pending}
        onSubmit={submit}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
      >
        <Field label="Provider" error={errorAt(error, "provider")}>
          {(control) => (
            <select className="input" {...control} {...form.input("provider")}>
              <option value="github">GitHub</option>
              <option value="gitlab">GitLab</option>
            </select>
          )}
        </Field>
        <Field
          label="Account or group"
          required
          autoComplete="off"
          hint="The organization (GitHub) or group (GitLab) name."
          {...form.input("externalAccountName")}
          error={errorAt(error, "externalAccountName")}
        />
        <Field
          label="API base URL"
          type="url"
          autoComplete="off"
          hint={`Only for a self-hosted instance. Empty: ${VcsConnection.defaultBaseUrls[v.provider as VcsConnection.VcsProvider]}`}
          {...form.input("baseUrl")}
          error={errorAt(error, "baseUrl")}
        />
        <Field
          label="Access token"
          required
          type="password"
          autoComplete="off"
          hint="Stored encrypted; it is never shown again."
          {...form.input("token")}
          error={errorAt(error, "token")}
        />
        <Field
          label="Push webhook secret"
          type="password"
          autoComplete="off"
          hint="Optional, 16 characters or more: without it the connection accepts no push events."
          {...form.input("webhookSecret")}
          error={errorAt(error, "webhookSecret")}
        />
      </Form>
    </section>
  )
}

function ConnectionDetails({ connection, onChanged, onClose }: {
  readonly connection: Connection
  readonly onChanged: () => void
  readonly onClose: () => void
}) {
  const { can } = useSession()
  const manage = can("repositories:manage")
  const toast = useToast()
  const details = useQuery((api, orgId) => api.vcsConnections.getVcsConnection({ params: { orgId, connectionId: connection.id } }), [
    connection.id
  ])
  const headingRef = useFocusOnMount()
  const setStatus = useMutation((api, orgId, status: "active" | "inactive") =>
    api.vcsConnections.updateVcsConnection({ params: { orgId, connectionId: connection.id }, payload: { status } })
  )
  const replace = useMutation((api, orgId, token: string) =>
    api.vcsConnections.replaceVcsConnectionToken({ params: { orgId, connectionId: connection.id }, payload: { token } })
  )
  const form = useForm({ token: "" })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const tokenError = checkError ?? replace.error
  const d = details.data
  const heading = `${providerName(connection.provider)} account ${connection.externalAccountName}`

  const toggle = async () => {
    if (d === undefined) return
    const next = d.status === "inactive" ? "active" : "inactive"
    const outcome = await setStatus.run(next)
    if (outcome.ok) {
      toast.show(next === "active" ? "Connection switched on" : "Connection switched off")
      details.reload()
      onChanged()
    }
  }

  return (
    <section className="card" aria-labelledby="vcs-details-title">
      <h3 id="vcs-details-title" className="form-card__title" tabIndex={-1} ref={headingRef}>{heading}</h3>
      {d === undefined
        ? details.loading ? <Loading label="Loading the connection" /> : <ErrorMessage error={details.error} onRetry={details.reload} />
        : (
          <>
            <dl className="definition-list">
              <dt>Status</dt>
              <dd>{statusBadge(d.status)}</dd>
              <dt>Source</dt>
              <dd>{d.source === "api" ? "Provider API" : "Fixture data (seed file)"}</dd>
              {d.baseUrl !== null ?
                (
                  <>
                    <dt>API base URL</dt>
                    <dd>
                      <code>{d.baseUrl}</code>
                    </dd>
                  </>
                ) :
                null}
              <dt>Token</dt>
              <dd>{d.tokenConfigured ? "Configured" : "None"}</dd>
              <dt>Push webhook secret</dt>
              <dd>{d.webhookSecretConfigured ? "Configured" : "None"}</dd>
            </dl>
            {manage
              ? (
                <>
                  <ErrorMessage error={setStatus.error} />
                  <p>
                    <button type="button" className="button" onClick={() => void toggle()} disabled={setStatus.pending}>
                      {d.status === "inactive" ? "Switch on" : "Switch off"}
                    </button>{" "}
                    <span className="muted">
                      {d.status === "inactive"
                        ? "Nothing goes through it while it is off."
                        : "Stops onboarding, syncs, scans and remediation through it."}
                    </span>
                  </p>
                  {d.source === "api"
                    ? (
                      <Form
                        className="form"
                        aria-label="Replace the token"
                        submitLabel="Replace token"
                        error={tokenError}
                        pending={replace.pending}
                        onSubmit={async () => {
                          setCheckError(undefined)
                          const local = localError({ token: fieldError(VcsConnection.Token, form.values.token) })
                          if (local !== undefined) {
                            setCheckError(local)
                            replace.reset()
                            return { ok: false }
                          }
                          const outcome = await replace.run(form.values.token)
                          if (outcome.ok) {
                            form.reset()
                            toast.show("Token replaced")
                            details.reload()
                          }
                          return outcome
                        }}
                      >
                        <Field
                          label="New access token"
                          type="password"
                          autoComplete="off"
                          hint="Replaces the stored token at once."
                          {...form.input("token")}
                          error={errorAt(tokenError, "token")}
                        />
                      </Form>
                    )
                    : null}
                </>
              )
              : null}
          </>
        )}
      <p className="form__actions details-close">
        <button type="button" className="button" onClick={onClose}>Close</button>
      </p>
    </section>
  )
}
