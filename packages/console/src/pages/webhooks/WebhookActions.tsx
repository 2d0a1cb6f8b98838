/**
 * A destination's row actions, each shown only to who may take it: send a test delivery, replace
 * the endpoint (Owner or Security Administrator; the form in a dialog keeps what was typed on a
 * refusal), rotate the signing secret (generic only; confirmed; the new secret goes to `onSecret`
 * to be shown once, the old one is invalid at once) and delete (confirmed).
 */
import { Webhook } from "@image-policy/core"
import { useId, useState } from "react"
import { type ApiError, useMutation } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { Field } from "../../components/Field.js"
import { Form } from "../../components/Form.js"
import { useToast } from "../../components/Toast.js"
import { useModal } from "../../components/useModal.js"
import { type Abilities, checkAgainst, errorAt, type WebhookView } from "./model.js"

function EndpointDialog({ webhook, open, onClose, onReplaced }: {
  readonly webhook: WebhookView
  readonly open: boolean
  readonly onClose: () => void
  readonly onReplaced: (updated: WebhookView) => void
}) {
  const ref = useModal(open)
  const titleId = useId()
  const [url, setUrl] = useState("")
  const [checked, setChecked] = useState<ApiError | undefined>()
  const replace = useMutation((api, orgId, endpointUrl: string) =>
    api.webhooks.replaceWebhookEndpoint({ params: { orgId, webhookId: webhook.id }, payload: { endpointUrl } })
  )
  const close = () => {
    setUrl("")
    setChecked(undefined)
    replace.reset()
    onClose()
  }
  const error = checked ?? replace.error
  return (
    <dialog ref={ref} className="dialog webhook-dialog" aria-labelledby={titleId} onClose={close} onCancel={close}>
      <h2 id={titleId} className="dialog__title">Replace the endpoint of {webhook.name}</h2>
      <p className="muted">
        Deliveries go to the new URL from now on
        {webhook.status === "disabled" ? "; the destination is enabled again" : ""}. The current one is {webhook.endpointPreview}.
      </p>
      {open
        ? (
          <Form
            aria-label="New endpoint"
            submitLabel="Replace endpoint"
            error={error}
            pending={replace.pending}
            actions={<button type="button" className="button" onClick={close}>Cancel</button>}
            onSubmit={async () => {
              const body = { endpointUrl: url.trim() }
              const refused = checkAgainst(Webhook.EndpointReplaceRequest, body)
              setChecked(refused)
              if (refused !== undefined) return { ok: false }
              const outcome = await replace.run(body.endpointUrl)
              if (outcome.ok) {
                onReplaced(outcome.value)
                close()
              }
              return outcome
            }}
          >
            <Field
              label="New endpoint URL"
              required
              type="url"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              hint="A public HTTPS address; stored encrypted and never shown again."
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              error={errorAt(error, "endpointUrl")}
            />
          </Form>
        )
        : null}
    </dialog>
  )
}

export function WebhookActions({ webhook, abilities, onChanged, onDeleted, onSecret, onTested, compact = false }: {
  readonly webhook: WebhookView
  readonly abilities: Abilities
  readonly onChanged: () => void
  readonly onDeleted: () => void
  readonly onSecret: (name: string, secret: string) => void
  readonly onTested?: () => void
  /** Small buttons (a table row). */
  readonly compact?: boolean
}) {
  const toast = useToast()
  const [dialog, setDialog] = useState<"endpoint" | "rotate" | "delete" | undefined>()
  const test = useMutation((api, orgId, _: void) => api.webhooks.testWebhook({ params: { orgId, webhookId: webhook.id } }))
  const rotate = useMutation((api, orgId, _: void) => api.webhooks.rotateWebhookSecret({ params: { orgId, webhookId: webhook.id } }))
  const remove = useMutation((api, orgId, _: void) => api.webhooks.deleteWebhook({ params: { orgId, webhookId: webhook.id } }))
  if (!abilities.manage) return null
  const size = compact ? "button button--small" : "button"
  return (
    <div className="webhook-actions">
      <button
        type="button"
        className={size}
        disabled={test.pending}
        onClick={async () => {
          const outcome = await test.run()
          if (outcome.ok) {
            toast.show("Test delivery queued")
            onTested?.()
          } else toast.show(outcome.error.detail, "error")
        }}
      >
        {test.pending ? "Sending…" : "Send test"}
        <span className="visually-hidden">{` delivery to ${webhook.name}`}</span>
      </button>
      {abilities.pointAtUrl
        ? (
          <button
            type="button"
            className={size}
            onClick={() => setDialog("endpoint")}
          >
            Replace endpoint<span className="visually-hidden">{` of ${webhook.name}`}</span>
          </button>
        )
        : null}
      {webhook.type === "generic"
        ? (
          <button
            type="button"
            className={size}
            onClick={() => setDialog("rotate")}
          >
            Rotate secret<span className="visually-hidden">{` of ${webhook.name}`}</span>
          </button>
        )
        : null}
      <button
        type="button"
        className={compact ? "button button--small button--danger-outline" : "button button--danger-outline"}
        onClick={() => setDialog("delete")}
      >
        Delete<span className="visually-hidden">{` ${webhook.name}`}</span>
      </button>
      {abilities.pointAtUrl
        ? (
          <EndpointDialog
            webhook={webhook}
            open={dialog === "endpoint"}
            onClose={() => setDialog(undefined)}
            onReplaced={() => {
              toast.show("Endpoint replaced")
              onChanged()
            }}
          />
        )
        : null}
      <ConfirmDialog
        open={dialog === "rotate"}
        title={`Rotate the signing secret of ${webhook.name}?`}
        confirmLabel="Rotate secret"
        danger
        mutation={rotate}
        onClose={() => setDialog(undefined)}
        onConfirm={() => rotate.run()}
        onDone={(value) => {
          onSecret(webhook.name, value.signingSecret)
          onChanged()
        }}
      >
        <p>
          The current secret stops working at once: deliveries from now on are signed with a new secret, shown once. Update your receiver
          right after.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === "delete"}
        title={`Delete ${webhook.name}?`}
        confirmLabel="Delete destination"
        danger
        mutation={remove}
        onClose={() => setDialog(undefined)}
        onConfirm={() => remove.run()}
        onDone={() => {
          toast.show(`${webhook.name} deleted`)
          onDeleted()
        }}
      >
        <p>No more events are sent to it. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  )
}
