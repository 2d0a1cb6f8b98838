/**
 * The typed client for pages: `useQuery`, `usePaged` and `useMutation` run calls of
 * `@image-policy/client` (made from the server's own HttpApi definition, so paths, bodies and
 * answers are typed) with the session cookie and its CSRF token. A failed call arrives as an
 * `ApiError` (`detail` and `fieldErrors` keyed by form field); a 401 ends the session (back to
 * sign-in, then to this page). This module and the client come with the pages (a lazy chunk),
 * never with the sign-in page.
 */
import { ApiClient } from "@image-policy/client"
import { type Id, Input } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { type DependencyList, useCallback, useEffect, useRef, useState } from "react"
import { type ApiError, toApiError } from "./problem.js"
import { csrfToken, noteActivity, reportUnauthorized, useSession } from "./session.js"

export type { ApiError } from "./problem.js"
export type Client = ApiClient.Client
export type OrgId = Id.OrgId

let client: Promise<Client> | undefined
/** The one client of the page: the page's origin, the session cookie, its CSRF token on unsafe calls. */
export const getClient = (): Promise<Client> => client ??= Effect.runPromise(ApiClient.makeFetch({ csrfToken }))

/** What a call is given: the client and the signed-in organization's id. */
export type Call<A> = (api: Client, orgId: OrgId) => Effect.Effect<A, unknown>

export type Outcome<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: ApiError }

/** A failed call's cause as an `ApiError`: the decoded `Problem`, or a network/decoding failure. */
export const errorOf = async (cause: Cause.Cause<unknown>): Promise<ApiError> => {
  const failure = cause.reasons.find(Cause.isFailReason)
  const error: unknown = failure?.error
  // the client checks a body against the endpoint's own schema before sending it: a refusal there is the
  // 400 the server would have answered, named by field the same way (core Input.fieldErrors), not "unreachable"
  if (Schema.isSchemaError(error)) {
    return toApiError({ status: 400, title: "Bad Request", detail: "Some fields need attention.", errors: Input.fieldErrors(error) }, 400)
  }
  if (typeof error === "object" && error !== null && "status" in error && typeof error.status === "number") {
    return toApiError(error, error.status)
  }
  // a status the endpoint does not declare reaches the client as an HttpClientError with its response
  const response = typeof error === "object" && error !== null && "response" in error
    ? (error as { readonly response?: { readonly status?: number; readonly json?: Effect.Effect<unknown, unknown> } }).response
    : undefined
  if (typeof response?.status === "number") {
    const body = response.json === undefined ? undefined : await Effect.runPromise(Effect.orElseSucceed(response.json, () => undefined))
    return toApiError(body, response.status)
  }
  return toApiError(undefined, 0)
}

/** Runs one call; a 401 signs the user out (back to sign-in, then here). Never throws. */
export const run = async <A>(call: Call<A>, orgId: OrgId): Promise<Outcome<A>> => {
  noteActivity()
  const api = await getClient()
  const exit = await Effect.runPromiseExit(call(api, orgId))
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  const error = await errorOf(exit.cause)
  if (error.status === 401) reportUnauthorized()
  return { ok: false, error }
}

export interface Query<A> {
  readonly data: A | undefined
  readonly error: ApiError | undefined
  readonly loading: boolean
  /** Runs the call again (after a change), keeping the current data on screen meanwhile. */
  readonly reload: () => void
}

/**
 * Reads once per change of `deps` (and on `reload()`): `useQuery((api, orgId) =>
 * api.teams.listTeams({ params: { orgId }, query: {} }), [])`.
 */
export function useQuery<A>(call: Call<A>, deps: DependencyList): Query<A> {
  const { session } = useSession()
  const orgId = session.organization.id
  const [state, setState] = useState<{ data: A | undefined; error: ApiError | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true
  })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let cancelled = false
    setState((s) => ({ ...s, loading: true }))
    void run(call, orgId).then((outcome) => {
      if (cancelled) return
      setState(
        outcome.ok ? { data: outcome.value, error: undefined, loading: false } : { data: undefined, error: outcome.error, loading: false }
      )
    })
    return () => {
      cancelled = true
    }
  }, [orgId, tick, ...deps])
  return { ...state, reload: useCallback(() => setTick((t) => t + 1), []) }
}

export interface PageOf<A> {
  readonly items: ReadonlyArray<A>
  /** Present (and not null) while more rows exist. */
  readonly nextCursor?: string | null | undefined
}

export interface Paged<A> {
  readonly items: ReadonlyArray<A>
  readonly error: ApiError | undefined
  readonly loading: boolean
  /** Present while the server has more rows (cursor paging): fetches the next page and appends it. */
  readonly loadMore: (() => void) | undefined
  readonly reload: () => void
}

/**
 * A cursor-paged list: `usePaged((api, orgId, cursor) => api.webhooks.listWebhooks({ params: { orgId },
 * query: { limit: 50, ...(cursor ? { cursor } : {}) } }), [])`. Feed it to `DataTable`.
 */
export function usePaged<A>(
  call: (api: Client, orgId: OrgId, cursor: string | undefined) => Effect.Effect<PageOf<A>, unknown>,
  deps: DependencyList
): Paged<A> {
  const { session } = useSession()
  const orgId = session.organization.id
  const [items, setItems] = useState<ReadonlyArray<A>>([])
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<ApiError | undefined>()
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  const generation = useRef(0)
  const callRef = useRef(call)
  callRef.current = call

  const fetchPage = useCallback((cursor: string | undefined, append: boolean) => {
    const mine = ++generation.current
    setLoading(true)
    void run((api, org) => callRef.current(api, org, cursor), orgId).then((outcome) => {
      if (mine !== generation.current) return
      setLoading(false)
      if (!outcome.ok) return setError(outcome.error)
      setError(undefined)
      setItems((prev) => append ? [...prev, ...outcome.value.items] : outcome.value.items)
      setNext(outcome.value.nextCursor ?? null)
    })
  }, [orgId])

  useEffect(() => {
    fetchPage(undefined, false)
  }, [fetchPage, tick, ...deps])

  return {
    items,
    error,
    loading,
    loadMore: next !== null && !loading ? () => fetchPage(next, true) : undefined,
    reload: useCallback(() => setTick((t) => t + 1), [])
  }
}

export interface Mutation<I, A> {
  /** Runs the change; resolves with its outcome (the form keeps what was typed either way). */
  readonly run: (input: I) => Promise<Outcome<A>>
  readonly pending: boolean
  /** The last failure (cleared when the next run starts). */
  readonly error: ApiError | undefined
  readonly reset: () => void
}

/**
 * A change: `const create = useMutation((api, orgId, input: Input) => api.apiKeys.createApiKey({
 * params: { orgId }, payload: input }))`, then `await create.run(values)`; show `create.error?.detail`
 * in the form and `create.error?.fieldErrors.name` at the field.
 */
export function useMutation<I, A>(call: (api: Client, orgId: OrgId, input: I) => Effect.Effect<A, unknown>): Mutation<I, A> {
  const { session } = useSession()
  const orgId = session.organization.id
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<ApiError | undefined>()
  const callRef = useRef(call)
  callRef.current = call
  const runIt = useCallback(async (input: I) => {
    setPending(true)
    setError(undefined)
    const outcome = await run((api, org) => callRef.current(api, org, input), orgId)
    setPending(false)
    if (!outcome.ok) setError(outcome.error)
    return outcome
  }, [orgId])
  return { run: runIt, pending, error, reset: useCallback(() => setError(undefined), []) }
}
