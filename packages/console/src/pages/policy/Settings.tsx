/**
 * A group's settings: what it applies to, who is notified of its policy events (inherit / none /
 * a team) and the cooldown of its external phases; edit them, or delete the group (with the
 * option to remove it from every repository it is assigned to when it is).
 */
import type { PolicyAdministration } from "@image-policy/core"
import { useState } from "react"
import { useMutation } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { groupIdOf } from "./data.js"
import { describeCooldown, describeNotification, GroupForm, useTeams, valuesOf } from "./GroupForm.js"

type Settings = PolicyAdministration.PolicyGroupSettings

function EditSettings({ settings, onSaved, onCancel }: {
  readonly settings: Settings
  readonly onSaved: (s: Settings) => void
  readonly onCancel: () => void
}) {
  const update = useMutation((api, orgId, body: PolicyAdministration.UpdatePolicyGroupRequest) =>
    api.policy.updatePolicyGroup({ params: { orgId, groupId: groupIdOf(settings.id) }, payload: body })
  )
  return (
    <GroupForm
      initial={valuesOf(settings)}
      submitLabel="Save settings"
      mutation={update}
      onSaved={onSaved}
      actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
    />
  )
}

export function GroupSettings({ settings, onSaved, onDeleted }: {
  readonly settings: Settings
  readonly onSaved: () => void
  readonly onDeleted: () => void
}) {
  const { can } = useSession()
  const toast = useToast()
  const { teams } = useTeams()
  const [editing, setEditing] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const [force, setForce] = useState(false)
  const remove = useMutation((api, orgId, withForce: boolean) =>
    api.policy.deletePolicyGroup({ params: { orgId, groupId: groupIdOf(settings.id) }, query: withForce ? { force: true } : {} })
  )
  const canPublish = can("policy:publish")
  return (
    <section className="pg-section" aria-labelledby="pg-settings-title">
      <div className="pg-section__head">
        <h2 id="pg-settings-title">Settings</h2>
        {canPublish && !editing
          ? (
            <span className="pg-actions">
              <button type="button" className="button" onClick={() => setEditing(true)}>Edit settings</button>
              <button type="button" className="button button--danger" onClick={() => setDeleting(true)}>Delete group…</button>
            </span>
          )
          : null}
      </div>
      {editing
        ? (
          <div className="card">
            <EditSettings
              settings={settings}
              onCancel={() => setEditing(false)}
              onSaved={() => {
                toast.show("Settings saved")
                setEditing(false)
                onSaved()
              }}
            />
          </div>
        )
        : (
          <dl className="pg-dl card">
            <div>
              <dt>Applies to</dt>
              <dd>{settings.applyToAllRepos ? "All repositories" : "Repositories assigned to it"}</dd>
            </div>
            <div>
              <dt>Notifications</dt>
              <dd>{describeNotification(settings.notification, teams)}</dd>
            </div>
            <div>
              <dt>Cooldown of external phases</dt>
              <dd>{describeCooldown(settings.cooldownSeconds)}</dd>
            </div>
          </dl>
        )}
      <ConfirmDialog
        open={deleting}
        title={`Delete policy group “${settings.name}”?`}
        confirmLabel="Delete group"
        danger
        mutation={remove}
        onClose={() => {
          setDeleting(false)
          setForce(false)
        }}
        onConfirm={() => remove.run(force)}
        onDone={() => {
          toast.show(`Policy group “${settings.name}” deleted`)
          onDeleted()
        }}
      >
        <p>The group goes with its phases, draft and published mappings. This cannot be undone.</p>
        <label className="pg-check">
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} />
          Also remove it from every repository it is assigned to
        </label>
      </ConfirmDialog>
    </section>
  )
}
