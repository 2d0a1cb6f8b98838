/**
 * Per-API-key token buckets: `ratePerSecond` tokens refill continuously up to `burst`. A request
 * that finds the bucket empty is answered 429 with the seconds until a token is back (Retry-After).
 * Buckets live in this process: with several hosts a key gets the rate from each (N hosts allow N
 * times the rate); docs/operations.md "Several hosts" says why and how an operator holds a cluster-wide rate.
 */
export interface Options {
  readonly ratePerSecond: number
  readonly burst: number
}

export const defaults: Options = { ratePerSecond: 50, burst: 100 }

/** `"RATE[:BURST]"`, e.g. `50:100`; `off` disables limiting. */
export const parse = (text: string | undefined): Options | null | undefined => {
  if (text === undefined || text.trim() === "") return defaults
  if (text.trim() === "off") return null
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?::\s*(\d+))?\s*$/.exec(text)
  if (!match) return undefined
  const ratePerSecond = Number(match[1])
  const burst = match[2] === undefined ? Math.max(1, Math.ceil(ratePerSecond * 2)) : Number(match[2])
  return ratePerSecond > 0 && burst >= 1 ? { ratePerSecond, burst } : undefined
}

export interface Limiter {
  /** 0 when the request may proceed, else the seconds to wait. */
  readonly take: (key: string, nowMs: number) => number
}

export const make = (options: Options | null): Limiter => {
  if (options === null) return { take: () => 0 }
  const buckets = new Map<string, { tokens: number; at: number }>()
  const perMs = options.ratePerSecond / 1000
  return {
    take: (key, nowMs) => {
      const bucket = buckets.get(key) ?? { tokens: options.burst, at: nowMs }
      bucket.tokens = Math.min(options.burst, bucket.tokens + (nowMs - bucket.at) * perMs)
      bucket.at = nowMs
      buckets.set(key, bucket)
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1
        return 0
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / options.ratePerSecond))
    }
  }
}
