/**
 * Refused sign-ins, counted per account (the email, whatever its case and organization) and per
 * client address (the socket's peer address: no `X-Forwarded-For` is trusted, so behind a proxy every
 * client shares the proxy's address and its allowance). The rules are the core's
 * (`Session.retryAfterMs`, `Session.recordFailure`): 5 refusals per account and 20 per address in any
 * 15 minutes; more wait (429 with Retry-After) until the oldest leaves the window. A successful
 * sign-in clears its account's count, not its address's (one valid account must not unlock guessing
 * at others from the same address).
 *
 * The counts live in this process, like the API key rate limit (RateLimit.ts): with N hosts an
 * attacker gets N times the allowance; docs/operations.md "Several hosts" says so.
 */
import { Session } from "@image-policy/core"

export interface Options {
  readonly account: Session.ThrottlePolicy
  readonly address: Session.ThrottlePolicy
}

export const defaults: Options = { account: Session.accountThrottle, address: Session.addressThrottle }

/** Past this many tracked keys the oldest are forgotten, so a flood of addresses cannot grow memory without bound. */
const maxKeys = 100_000

export interface Throttle {
  /** 0 when an attempt may proceed now, else the milliseconds to wait. */
  readonly wait: (account: string, address: string, nowMs: number) => number
  readonly failed: (account: string, address: string, nowMs: number) => void
  readonly succeeded: (account: string) => void
}

export const make = (options: Options = defaults): Throttle => {
  const accounts = new Map<string, ReadonlyArray<number>>()
  const addresses = new Map<string, ReadonlyArray<number>>()
  const record = (map: Map<string, ReadonlyArray<number>>, key: string, nowMs: number, policy: Session.ThrottlePolicy) => {
    const next = Session.recordFailure(map.get(key) ?? [], nowMs, policy)
    map.delete(key) // re-inserted last: the map's order is the order of last failure
    map.set(key, next)
    if (map.size > maxKeys) map.delete(map.keys().next().value!)
  }
  return {
    wait: (account, address, nowMs) =>
      Math.max(
        Session.retryAfterMs(accounts.get(account) ?? [], nowMs, options.account),
        Session.retryAfterMs(addresses.get(address) ?? [], nowMs, options.address)
      ),
    failed: (account, address, nowMs) => {
      record(accounts, account, nowMs, options.account)
      record(addresses, address, nowMs, options.address)
    },
    succeeded: (account) => {
      accounts.delete(account)
    }
  }
}
