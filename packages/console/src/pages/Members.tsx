/**
 * Settings -> Members and roles (issue 15/17): the people of the organization (add, change their
 * access, disable or enable, remove) and the roles they and API keys hold (built-in roles read
 * only; custom roles created, edited, deleted).
 */
import { Member, Role, Team } from "@image-policy/core"
import { useEffect, useRef, useState } from "react"
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
import { accessBody, AccessCell, accessErrors, AccessPicker, type AccessValue, PermissionChecklist, useRoles } from "./settings/access.js"
import "./settings/settings.css"
import { errorAt, fieldError, localError } from "./settings/validate.js"

const title = "Members and roles"
const description = "Who can sign in to the console, and what they may do."

export default function Members() {
  const { can } = useSession()
  if (!can("members:manage")) {
    return (
      <Page title={title} description={description}>
        <div className="alert alert--info">
          <p>Only members with the permission to manage members (members:manage) can see and change them.</p>
        </div>
      </Page>
    )
  }
  return (
    <Page title={title} description={description}>
      <MembersAndRoles />
    </Page>
  )
}

/** An editor's heading takes focus when it opens (keyboard and screen reader users land in it). */
const useFocusOnMount = () => {
  const ref = useRef<HTMLHeadingElement>(null)
  useEffect(() => ref.current?.focus(), [])
  return ref
}

const accessOf = (holder: { readonly role?: string | undefined; readonly permissions: ReadonlyArray<string> }): AccessValue =>
  holder.role !== undefined
    ? { mode: "role", role: holder.role, permissions: [] }
    : { mode: "permissions", role: "", permissions: holder.permissions as AccessValue["permissions"] }

function MembersAndRoles() {
  const { roles, reload: reloadRoleOptions } = useRoles()
  const roleList = usePaged(
    (api, orgId, cursor) => api.roles.listRoles({ params: { orgId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    []
  )
  const rolesChanged = () => {
    roleList.reload()
    reloadRoleOptions()
  }
  return (
    <>
      <MembersSection roles={roles} />
      <RolesSection roleList={roleList} onChanged={rolesChanged} />
    </>
  )
}

// ---------------------------------------------------------------------------------------------
// Members
// ---------------------------------------------------------------------------------------------

function MembersSection({ roles }: { readonly roles: ReadonlyArray<Role.RoleView> }) {
  const { session } = useSession()
  const toast = useToast()
  const members = usePaged(
    (api, orgId, cursor) => api.members.listMembers({ params: { orgId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    []
  )
  // undefined: closed; "new": adding; a member: editing it
  const [editing, setEditing] = useState<Member.MemberView | "new" | undefined>()
  const [removing, setRemoving] = useState<Member.MemberView | undefined>()
  const [disabling, setDisabling] = useState<Member.MemberView | undefined>()
  const [resetting, setResetting] = useState<Member.MemberView | undefined>()
  const [newPassword, setNewPassword] = useState<{ readonly name: string; readonly password: string } | undefined>()
  const addButton = useRef<HTMLButtonElement>(null)

  const update = useMutation((api, orgId, input: { id: Member.MemberView["id"]; payload: Member.MemberUpdateRequest }) =>
    api.members.updateMember({ params: { orgId, memberId: input.id }, payload: input.payload })
  )
  const remove = useMutation((api, orgId, id: Member.MemberView["id"]) => api.members.deleteMember({ params: { orgId, memberId: id } }))
  const resetPassword = useMutation((api, orgId, id: Member.MemberView["id"]) =>
    api.members.resetMemberPassword({ params: { orgId, memberId: id } })
  )

  const enable = async (m: Member.MemberView) => {
    const outcome = await update.run({ id: m.id, payload: { disabled: false } })
    if (outcome.ok) {
      toast.show(`${m.name} can sign in again`)
      members.reload()
    } else toast.show(outcome.error.detail, "error")
  }

  const close = () => {
    setEditing(undefined)
    requestAnimationFrame(() => addButton.current?.focus())
  }

  return (
    <section className="settings-section" aria-labelledby="members-title">
      <div className="settings-section__header">
        <h2 id="members-title">Members</h2>
        {editing === undefined
          ? <button ref={addButton} type="button" className="button button--primary" onClick={() => setEditing("new")}>Add member</button>
          : null}
      </div>
      {editing !== undefined
        ? (
          <MemberEditor
            key={editing === "new" ? "new" : editing.id}
            member={editing === "new" ? undefined : editing}
            roles={roles}
            onDone={(message) => {
              toast.show(message)
              members.reload()
              close()
            }}
            onCancel={close}
          />
        )
        : null}
      {newPassword !== undefined
        ? (
          <SecretOnce
            label={`New password of ${newPassword.name}`}
            secret={newPassword.password}
            onDone={() => {
              setNewPassword(undefined)
              requestAnimationFrame(() => addButton.current?.focus())
            }}
          />
        )
        : null}
      <DataTable
        caption="Members"
        paged={members}
        rowKey={(m) => m.id}
        empty={<EmptyState title="No members yet" />}
        columns={[
          {
            header: "Member",
            cell: (m) => (
              <div className="cell-stack">
                <span className="key-name">{m.name}{m.id === session.user.id ? " (you)" : ""}</span>
                <span className="cell-sub">{m.email}</span>
              </div>
            )
          },
          { header: "Access", cell: (m) => <AccessCell access={m} roles={roles} /> },
          {
            header: "Status",
            cell: (m) =>
              m.disabled ? <span className="badge badge--warning">Disabled</span> : <span className="badge badge--success">Active</span>
          },
          {
            header: "Actions",
            kind: "actions",
            visuallyHiddenHeader: true,
            cell: (m) =>
              m.id === session.user.id
                ? <span className="muted">—</span>
                : (
                  <>
                    <button type="button" className="button button--small" onClick={() => setEditing(m)} aria-label={`Edit ${m.name}`}>
                      Edit
                    </button>
                    {m.disabled
                      ? (
                        <button
                          type="button"
                          className="button button--small"
                          onClick={() => void enable(m)}
                          aria-label={`Enable ${m.name}`}
                        >
                          Enable
                        </button>
                      )
                      : (
                        <button
                          type="button"
                          className="button button--small"
                          onClick={() => setDisabling(m)}
                          aria-label={`Disable ${m.name}`}
                        >
                          Disable
                        </button>
                      )}
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => setResetting(m)}
                      aria-label={`Reset password of ${m.name}`}
                    >
                      Reset password
                    </button>
                    <button type="button" className="button button--small" onClick={() => setRemoving(m)} aria-label={`Remove ${m.name}`}>
                      Remove
                    </button>
                  </>
                )
          }
        ]}
      />
      <ConfirmDialog
        target={disabling}
        title="Disable this member?"
        confirmLabel="Disable member"
        danger
        mutation={update}
        onClose={() => setDisabling(undefined)}
        onConfirm={(member) => update.run({ id: member.id, payload: { disabled: true } })}
        onDone={(_, member) => {
          toast.show(`${member.name} is disabled`)
          members.reload()
        }}
      >
        <p>
          <strong>{disabling?.name}</strong>{" "}
          ({disabling?.email}) is signed out and can do nothing until enabled again. The member stays in the list and the audit log.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        target={resetting}
        title="Reset this member's password?"
        confirmLabel="Reset password"
        danger
        mutation={resetPassword}
        onClose={() => setResetting(undefined)}
        onConfirm={(member) => resetPassword.run(member.id)}
        onDone={(reset, member) => setNewPassword({ name: member.name, password: reset.password })}
      >
        <p>
          <strong>{resetting?.name}</strong>{" "}
          ({resetting?.email}) gets a new password, shown to you once, and is signed out everywhere. Hand it over safely; they can change it
          under their account.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        target={removing}
        title="Remove this member?"
        confirmLabel="Remove member"
        danger
        mutation={remove}
        onClose={() => setRemoving(undefined)}
        onConfirm={(member) => remove.run(member.id)}
        onDone={(_, member) => {
          toast.show(`${member.name} removed`)
          members.reload()
        }}
      >
        <p>
          <strong>{removing?.name}</strong>{" "}
          ({removing?.email}) is removed with their email; the audit log keeps their id. To keep the member but stop them, disable them
          instead.
        </p>
      </ConfirmDialog>
    </section>
  )
}

function MemberEditor({ member, roles, onDone, onCancel }: {
  readonly member: Member.MemberView | undefined
  readonly roles: ReadonlyArray<Role.RoleView>
  readonly onDone: (message: string) => void
  readonly onCancel: () => void
}) {
  const form = useForm({ email: member?.email ?? "", name: member?.name ?? "" })
  const [access, setAccess] = useState<AccessValue>(member !== undefined ? accessOf(member) : { mode: "role", role: "", permissions: [] })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const create = useMutation((api, orgId, payload: Member.MemberCreateRequest) => api.members.createMember({ params: { orgId }, payload }))
  const update = useMutation((api, orgId, input: { id: Member.MemberView["id"]; payload: Member.MemberUpdateRequest }) =>
    api.members.updateMember({ params: { orgId, memberId: input.id }, payload: input.payload })
  )
  const mutation = member === undefined ? create : update
  const error = checkError ?? mutation.error
  const heading = member === undefined ? "Add a member" : `Edit ${member.name}`
  const headingRef = useFocusOnMount()

  const submit = async () => {
    setCheckError(undefined)
    const local = localError({
      ...(member === undefined ? { email: fieldError(Member.Email, form.values.email) } : {}),
      // a member's name is 1..200 characters, trimmed, like a team's
      name: fieldError(Team.TeamName, form.values.name),
      ...accessErrors(access)
    })
    if (local !== undefined) {
      setCheckError(local)
      mutation.reset()
      return { ok: false }
    }
    if (member === undefined) {
      const payload = {
        email: form.values.email.trim(),
        name: form.values.name.trim(),
        ...accessBody(access)
      } as Member.MemberCreateRequest
      const outcome = await create.run(payload)
      if (outcome.ok) onDone(`${outcome.value.name} added`)
      return outcome
    }
    const payload = { name: form.values.name.trim(), ...accessBody(access) } as Member.MemberUpdateRequest
    const outcome = await update.run({ id: member.id, payload })
    if (outcome.ok) onDone(`${outcome.value.name} updated`)
    return outcome
  }

  return (
    <section className="card" aria-labelledby="member-editor-title">
      <h3 id="member-editor-title" className="form-card__title" tabIndex={-1} ref={headingRef}>{heading}</h3>
      <Form
        className="form form--wide"
        aria-label={heading}
        submitLabel={member === undefined ? "Add member" : "Save changes"}
        error={error}
        pending={mutation.pending}
        onSubmit={submit}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
      >
        {member === undefined
          ? (
            <Field
              label="Email"
              required
              type="email"
              autoComplete="off"
              hint="The member signs in with this address."
              {...form.input("email")}
              error={errorAt(error, "email")}
            />
          )
          : <p className="muted">Email: {member.email} (cannot change)</p>}
        <Field label="Name" required autoComplete="off" {...form.input("name")} error={errorAt(error, "name")} />
        <AccessPicker
          value={access}
          onChange={setAccess}
          roles={roles}
          roleError={errorAt(error, "role")}
          permissionsError={errorAt(error, "permissions")}
        />
      </Form>
    </section>
  )
}

// ---------------------------------------------------------------------------------------------
// Roles
// ---------------------------------------------------------------------------------------------

function RolesSection({ roleList, onChanged }: {
  readonly roleList: ReturnType<typeof usePaged<Role.RoleView>>
  readonly onChanged: () => void
}) {
  const toast = useToast()
  const [editing, setEditing] = useState<Role.RoleView | "new" | undefined>()
  const [deleting, setDeleting] = useState<Role.RoleView | undefined>()
  const createButton = useRef<HTMLButtonElement>(null)
  const remove = useMutation((api, orgId, id: string) => api.roles.deleteRole({ params: { orgId, roleId: id } }))
  const close = () => {
    setEditing(undefined)
    requestAnimationFrame(() => createButton.current?.focus())
  }
  return (
    <section className="settings-section" aria-labelledby="roles-title">
      <div className="settings-section__header">
        <h2 id="roles-title">Roles</h2>
        {editing === undefined
          ? (
            <button ref={createButton} type="button" className="button button--primary" onClick={() => setEditing("new")}>
              Create role
            </button>
          )
          : null}
      </div>
      <p className="settings-section__intro">
        Built-in roles cannot change. A custom role's permissions apply at once to every member and API key holding it.
      </p>
      {editing !== undefined
        ? (
          <RoleEditor
            key={editing === "new" ? "new" : editing.id}
            role={editing === "new" ? undefined : editing}
            onDone={(message) => {
              toast.show(message)
              onChanged()
              close()
            }}
            onCancel={close}
          />
        )
        : null}
      <DataTable
        caption="Roles"
        paged={roleList}
        rowKey={(r) => r.id}
        columns={[
          {
            header: "Role",
            cell: (r) => (
              <div className="cell-stack cell-stack--row">
                <span className="key-name">{r.name}</span>{" "}
                {r.builtIn ? <span className="badge">Built-in</span> : <span className="badge">Custom</span>}
              </div>
            )
          },
          { header: "Permissions", cell: (r) => <AccessCell access={{ permissions: r.permissions }} roles={[]} permissionsOnly /> },
          {
            header: "Actions",
            kind: "actions",
            visuallyHiddenHeader: true,
            cell: (r) =>
              r.builtIn ? <span className="muted">Cannot change</span> : (
                <>
                  <button type="button" className="button button--small" onClick={() => setEditing(r)} aria-label={`Edit role ${r.name}`}>
                    Edit
                  </button>
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => setDeleting(r)}
                    aria-label={`Delete role ${r.name}`}
                  >
                    Delete
                  </button>
                </>
              )
          }
        ]}
      />
      <ConfirmDialog
        target={deleting}
        title="Delete this role?"
        confirmLabel="Delete role"
        danger
        mutation={remove}
        onClose={() => setDeleting(undefined)}
        onConfirm={(role) => remove.run(role.id)}
        onDone={(_, role) => {
          toast.show(`Role “${role.name}” deleted`)
          onChanged()
        }}
      >
        <p>
          The role <strong>{deleting?.name}</strong>{" "}
          is deleted. A role still held by a member or an active API key cannot be deleted: give them another role first.
        </p>
      </ConfirmDialog>
    </section>
  )
}

function RoleEditor({ role, onDone, onCancel }: {
  readonly role: Role.RoleView | undefined
  readonly onDone: (message: string) => void
  readonly onCancel: () => void
}) {
  const form = useForm({ name: role?.name ?? "" })
  const [permissions, setPermissions] = useState<AccessValue["permissions"]>(role?.permissions ?? [])
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const create = useMutation((api, orgId, payload: Role.RoleCreateRequest) => api.roles.createRole({ params: { orgId }, payload }))
  const update = useMutation((api, orgId, input: { id: string; payload: Role.RoleUpdateRequest }) =>
    api.roles.updateRole({ params: { orgId, roleId: input.id }, payload: input.payload })
  )
  const mutation = role === undefined ? create : update
  const error = checkError ?? mutation.error
  const heading = role === undefined ? "Create a custom role" : `Edit role ${role.name}`
  const headingRef = useFocusOnMount()
  const submit = async () => {
    setCheckError(undefined)
    const local = localError({
      name: fieldError(Role.RoleDisplayName, form.values.name),
      permissions: permissions.length === 0 ? "Choose at least one permission." : undefined
    })
    if (local !== undefined) {
      setCheckError(local)
      mutation.reset()
      return { ok: false }
    }
    const body = { name: form.values.name.trim(), ...accessBody({ mode: "permissions", role: "", permissions }) } as Role.RoleCreateRequest
    if (role === undefined) {
      const outcome = await create.run(body)
      if (outcome.ok) onDone(`Role “${outcome.value.name}” created`)
      return outcome
    }
    const outcome = await update.run({ id: role.id, payload: body })
    if (outcome.ok) onDone(`Role “${outcome.value.name}” saved`)
    return outcome
  }
  return (
    <section className="card" aria-labelledby="role-editor-title">
      <h3 id="role-editor-title" className="form-card__title" tabIndex={-1} ref={headingRef}>{heading}</h3>
      <Form
        className="form form--wide"
        aria-label={heading}
        submitLabel={role === undefined ? "Create role" : "Save role"}
        error={error}
        pending={mutation.pending}
        onSubmit={submit}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
      >
        <Field label="Role name" required autoComplete="off" {...form.input("name")} error={errorAt(error, "name")} />
        <PermissionChecklist legend="Permissions" value={permissions} onChange={setPermissions} error={errorAt(error, "permissions")} />
      </Form>
    </section>
  )
}
