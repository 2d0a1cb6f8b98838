/**
 * Waits for something a background worker does: polls `f` until it answers a value other than
 * `undefined` or `false`, and answers that value; fails naming `what` after `timeoutMs`.
 */
export const until = async <A>(
  what: string,
  f: () => Promise<A | undefined | false> | A | undefined | false,
  timeoutMs = 15_000,
  everyMs = 25
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await f()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
