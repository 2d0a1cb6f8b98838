/**
 * Create a webhook destination (Owner or Security Administrator): name, type (generic, or chat with
 * its platform), endpoint URL, scope (organization, a team or a policy group), audience team and the
 * events, chosen from the catalog (`GET /api/v1/event-types`) grouped by family. The body is checked
 * with the API's schema first; the API's own refusals (an endpoint that is not a public HTTPS URL)
 * show at their field. What was typed stays on any error. A generic destination's signing secret is
 * handed to `onCreated`, to be shown once.
 */
import { Webhook } from "@image-policy/core"
import { useState } from "react"
import { type ApiError, useMutation, useQuery } from "../../api.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { Loading } from "../../components/Loading.js"
import { chatPlatformLabels, checkAgainst, errorAt, type Names, shortEventType } from "./model.js"

const familyLabels: Record<string, string> = {
  policy: "Policy groups and mappings",
  snooze: "Snooze requests",
  remediation: "Remediation pull requests",
  webhook: "Webhook tests"
}

const initial = {
  name: "",
  type: "generic",
  chatPlatform: "slack",
  endpointUrl: "",
  scopeKind: "organization",
  scopeTeamId: "",
  scopeGroupId: "",
  audienceTeamId: ""
}
type Values = typeof initial

/** The create body as the API takes it (contracts 5). */
const bodyOf = (v: Values, events: ReadonlyArray<string>) => ({
  name: v.name,
  type: v.type,
  ...(v.type === "chat" ? { chatPlatform: v.chatPlatform } : {}),
  endpointUrl: v.endpointUrl.trim(),
  ...(v.audienceTeamId !== "" ? { audienceTeamId: v.audienceTeamId } : {}),
  scope: v.scopeKind === "team"
    ? { kind: "team", teamId: v.scopeTeamId }
    : v.scopeKind === "policyGroup"
    ? { kind: "policyGroup", policyGroupId: v.scopeGroupId }
    : { kind: "organization" },
  events
})

export function CreateWebhook({ names, onCreated, onCancel }: {
  readonly names: Names
  readonly onCreated: (created: Webhook.WebhookCreated) => void
  readonly onCancel: () => void
}) {
  const form = useForm(initial)
  const v = form.values
  const [events, setEvents] = useState<ReadonlyArray<string>>([])
  const [checked, setChecked] = useState<ApiError | undefined>()
  const catalog = useQuery((api) => api.meta.listEventTypes(), [])
  const create = useMutation((api, orgId, body: Webhook.WebhookCreateRequest) =>
    api.webhooks.createWebhook({ params: { orgId }, payload: body })
  )
  const error = checked ?? create.error

  const families = new Map<string, Array<{ type: string; description: string }>>()
  for (const item of catalog.data?.items ?? []) {
    const list = families.get(item.family) ?? []
    list.push({ type: item.type, description: item.description })
    families.set(item.family, list)
  }
  const toggle = (type: string, on: boolean) =>
    setEvents((all) => on ? [...all.filter((t) => t !== type), type] : all.filter((t) => t !== type))
  const toggleFamily = (types: ReadonlyArray<string>, on: boolean) =>
    setEvents((all) => on ? [...all.filter((t) => !types.includes(t)), ...types] : all.filter((t) => !types.includes(t)))

  const submit = async () => {
    // catalog order, so the stored list reads like the checkboxes
    const ordered = (catalog.data?.items ?? []).map((i) => i.type).filter((t) => events.includes(t))
    const body = bodyOf(v, ordered)
    const refused = checkAgainst(Webhook.WebhookCreateRequest, body)
    // a scope without its team or group: the schema names the id, the form names the choice
    setChecked(refused)
    if (refused !== undefined) {
      create.reset()
      return { ok: false }
    }
    const outcome = await create.run(body as Webhook.WebhookCreateRequest)
    if (outcome.ok) {
      form.reset()
      setEvents([])
      onCreated(outcome.value)
    }
    return outcome
  }

  const eventsError = errorAt(error, "events")
  // an empty required field reads as what to do, not as the schema's length rule
  const fieldError = (path: "name" | "endpointUrl", what: string) =>
    v[path].trim() === "" && errorAt(error, path) !== undefined ? what : errorAt(error, path)
  return (
    <section className="card webhook-create" aria-labelledby="webhook-create-title">
      <h2 id="webhook-create-title">New destination</h2>
      <Form
        className="form webhook-form"
        aria-label="New webhook destination"
        submitLabel="Create destination"
        error={error}
        pending={create.pending}
        onSubmit={submit}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
      >
        <Field
          label="Name"
          required
          maxLength={100}
          autoComplete="off"
          {...form.input("name")}
          error={fieldError("name", "Enter a name.")}
        />
        <fieldset className="webhook-form__group">
          <legend className="field__label">Type</legend>
          <label className="webhook-choice">
            <input type="radio" name="type" value="generic" checked={v.type === "generic"} onChange={() => form.set("type", "generic")} />
            <span>
              <strong>Generic</strong>{" "}
              <span className="muted">signed CloudEvents JSON; you get a signing secret to verify each request</span>
            </span>
          </label>
          <label className="webhook-choice">
            <input type="radio" name="type" value="chat" checked={v.type === "chat"} onChange={() => form.set("type", "chat")} />
            <span>
              <strong>Chat</strong> <span className="muted">a native message to a chat channel's incoming webhook</span>
            </span>
          </label>
          {errorAt(error, "type") !== undefined ? <p className="field__error">{errorAt(error, "type")}</p> : null}
        </fieldset>
        {v.type === "chat"
          ? (
            <Field label="Chat platform" error={errorAt(error, "chatPlatform")}>
              {(control) => (
                <select className="input" {...control} {...form.input("chatPlatform")}>
                  {Webhook.ChatPlatform.literals.map((p) => <option key={p} value={p}>{chatPlatformLabels[p]}</option>)}
                </select>
              )}
            </Field>
          )
          : null}
        <Field
          label="Endpoint URL"
          required
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          hint="A public HTTPS address. It is stored encrypted and never shown again: lists show only a masked preview."
          {...form.input("endpointUrl")}
          error={fieldError("endpointUrl", "Enter the endpoint URL.")}
        />
        <Field label="Scope" hint="Which events reach it: all of the organization's, one team's, or one policy group's.">
          {(control) => (
            <select className="input" {...control} {...form.input("scopeKind")}>
              <option value="organization">Organization</option>
              <option value="team">One team</option>
              <option value="policyGroup">One policy group</option>
            </select>
          )}
        </Field>
        {v.scopeKind === "team"
          ? (
            <Field label="Scope team" required error={errorAt(error, "scope")}>
              {(control) => (
                <select className="input" {...control} {...form.input("scopeTeamId")}>
                  <option value="">Choose a team</option>
                  {names.teams.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
                </select>
              )}
            </Field>
          )
          : null}
        {v.scopeKind === "policyGroup"
          ? (
            <Field label="Scope policy group" required error={errorAt(error, "scope")}>
              {(control) => (
                <select className="input" {...control} {...form.input("scopeGroupId")}>
                  <option value="">Choose a policy group</option>
                  {names.groups.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
                </select>
              )}
            </Field>
          )
          : null}
        <Field
          label="Audience team"
          hint="Who is notified. It names an audience only and grants no access."
          error={errorAt(error, "audienceTeamId")}
        >
          {(control) => (
            <select className="input" {...control} {...form.input("audienceTeamId")}>
              <option value="">None</option>
              {names.teams.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
            </select>
          )}
        </Field>
        <fieldset
          className={eventsError !== undefined ? "webhook-form__group webhook-events field--invalid" : "webhook-form__group webhook-events"}
          aria-describedby={eventsError !== undefined ? "webhook-events-error" : undefined}
        >
          <legend className="field__label">
            Events<span className="field__required" aria-hidden="true">*</span>
          </legend>
          {catalog.loading && catalog.data === undefined ? <Loading label="Loading event types" /> : null}
          <ErrorMessage error={catalog.error} onRetry={catalog.reload} />
          {[...families].map(([family, items]) => {
            const types = items.map((i) => i.type)
            const all = types.every((t) => events.includes(t))
            return (
              <fieldset key={family} className="webhook-family">
                <legend className="webhook-family__title">{familyLabels[family] ?? family}</legend>
                <label className="webhook-check webhook-check--all">
                  <input type="checkbox" checked={all} onChange={(e) => toggleFamily(types, e.target.checked)} />
                  <span>All {types.length} of this family</span>
                </label>
                {items.map((item, index) => (
                  <label key={item.type} className="webhook-check">
                    <input
                      type="checkbox"
                      name="events"
                      value={item.type}
                      checked={events.includes(item.type)}
                      onChange={(e) => toggle(item.type, e.target.checked)}
                      aria-invalid={eventsError !== undefined && index === 0 && events.length === 0 ? true : undefined}
                    />
                    <span>
                      <code>{shortEventType(item.type)}</code> <span className="muted">{item.description}</span>
                    </span>
                  </label>
                ))}
              </fieldset>
            )
          })}
          {eventsError !== undefined
            ? <p id="webhook-events-error" className="field__error">{events.length === 0 ? "Choose at least one event." : eventsError}</p>
            : null}
        </fieldset>
      </Form>
    </section>
  )
}
