/**
 * Secrets at rest (VCS tokens, webhook signing secrets): AES-256-GCM through WebCrypto, so the
 * same code runs on Node 20 and Deno. The key comes from `IMAGE_POLICY_SECRET_KEY` (base64 of 32
 * bytes; contracts/README.md section 1).
 *
 * Sealed form: `v1.<base64url iv>.<base64url ciphertext+tag>`. The version prefix lets a later
 * release change algorithm or key without guessing what an old value is. A fresh random 12-byte IV
 * per seal: GCM must never reuse an IV under one key.
 */
import { SecretBox, SecretUnavailable } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"

export class SecretBoxError extends Data.TaggedError("SecretBoxError")<{
  readonly reason: "malformed" | "decrypt-failed" | "bad-key"
  /** Never contains the plaintext, the sealed value or the key. */
  readonly message: string
}> {}

const VERSION = "v1"
const IV_BYTES = 12
const KEY_BYTES = 32
const TAG_BYTES = 16

const subtle = () => globalThis.crypto.subtle

/** A new random key, base64 (the format of `IMAGE_POLICY_SECRET_KEY`). */
export const generateKey = (): string => Base64.encode(globalThis.crypto.getRandomValues(new Uint8Array(KEY_BYTES)))

/** Decodes and checks a base64 key; the error never echoes the key. */
export const decodeKey = (base64: string): Result.Result<Uint8Array, SecretBoxError> =>
  Base64.decode(base64.trim()).pipe(
    // the decoder's own error quotes its input (the key): only our message goes on
    Result.mapError(() => new SecretBoxError({ reason: "bad-key", message: "secret key is not valid base64" })),
    Result.filterOrFail(
      (bytes) => bytes.length === KEY_BYTES,
      (bytes) =>
        new SecretBoxError({
          reason: "bad-key",
          message: `secret key must be ${KEY_BYTES} bytes of base64, got ${bytes.length} bytes`
        })
    )
  )

const importKey = (raw: Uint8Array) =>
  Effect.tryPromise({
    try: () => subtle().importKey("raw", Uint8Array.from(raw), { name: "AES-GCM" }, false, ["encrypt", "decrypt"]),
    catch: () => new SecretBoxError({ reason: "bad-key", message: "secret key was rejected by WebCrypto" })
  })

/** A SecretBox over a raw 32-byte key. */
export const make = (rawKey: Uint8Array): Effect.Effect<typeof SecretBox.Service, SecretBoxError> =>
  Effect.map(importKey(rawKey), (key) => {
    const malformed = new SecretUnavailable({ reason: "malformed" })
    const decryptFailed = new SecretUnavailable({ reason: "decrypt-failed" })
    return SecretBox.of({
      seal: (plaintext) =>
        Effect.promise(async () => {
          const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES))
          const ciphertext = await subtle().encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext))
          return `${VERSION}.${Base64Url.encode(iv)}.${Base64Url.encode(new Uint8Array(ciphertext))}`
        }),
      open: (sealed) => {
        const parts = sealed.split(".")
        if (parts.length !== 3 || parts[0] !== VERSION) return Effect.fail(malformed)
        const iv = Base64Url.decode(parts[1]!)
        const ciphertext = Base64Url.decode(parts[2]!)
        if (
          Result.isFailure(iv) || Result.isFailure(ciphertext) || iv.success.length !== IV_BYTES ||
          ciphertext.success.length < TAG_BYTES
        ) return Effect.fail(malformed)
        return Effect.tryPromise({
          try: () => subtle().decrypt({ name: "AES-GCM", iv: Uint8Array.from(iv.success) }, key, Uint8Array.from(ciphertext.success)),
          catch: () => decryptFailed
        }).pipe(
          Effect.flatMap((plain) =>
            Effect.try({
              try: () => new TextDecoder("utf-8", { fatal: true }).decode(plain),
              catch: () => decryptFailed
            })
          )
        )
      }
    })
  })

/**
 * Key rotation: seals with `current` and opens with `current`, then with each of `previous` in
 * order when it could not (a sealed value names no key; GCM's tag tells a wrong key apart, so a
 * value opens under its own key only). Values sealed under a previous key keep working until
 * they are sealed again under the current one (`image-policy secrets reseal`, docs/deploy.md).
 */
export const withPrevious = (
  current: typeof SecretBox.Service,
  previous: ReadonlyArray<typeof SecretBox.Service>
): typeof SecretBox.Service =>
  previous.length === 0 ? current : SecretBox.of({
    seal: current.seal,
    open: (sealed) =>
      previous.reduce(
        (opened, box) => Effect.catchIf(opened, (e) => e.reason === "decrypt-failed", () => box.open(sealed)),
        current.open(sealed)
      )
  })

/**
 * The SecretBox for a base64 key (`IMAGE_POLICY_SECRET_KEY`), opening with the `previous` keys too
 * (`IMAGE_POLICY_SECRET_KEY_PREVIOUS`, see `withPrevious`); fails with `bad-key` when a key is not
 * 32 bytes.
 */
export const layerFromKey = (base64Key: string, previous: ReadonlyArray<string> = []): Layer.Layer<SecretBox, SecretBoxError> =>
  Layer.effect(
    SecretBox,
    Effect.gen(function*() {
      const box = (key: string) => Effect.flatMap(Effect.fromResult(decodeKey(key)), make)
      return withPrevious(yield* box(base64Key), yield* Effect.forEach(previous, box))
    })
  )

/** How many opened values `openedCache` keeps, and for how long. */
const OPENED_CAPACITY = 1_024
const OPENED_TTL_MS = 60_000

/**
 * A `SecretBox` that remembers what it opened (the webhook delivery worker's: every attempt opens
 * its destination's endpoint URL and signing secret, and two AES-GCM opens through WebCrypto cost
 * as much CPU as the rest of the core's `deliver`). The key is the sealed text itself: replacing the
 * endpoint or rotating the secret stores a new sealed value (a fresh IV), so a stale plaintext is
 * never used. Entries are dropped after a minute, or when more than 1,024 are held (oldest first),
 * so a deleted destination's secrets do not stay in memory for long; they were in memory for every
 * attempt anyway.
 */
export const openedCache = (box: typeof SecretBox.Service): typeof SecretBox.Service => {
  const opened = new Map<string, { readonly plaintext: string; readonly until: number }>()
  return SecretBox.of({
    seal: box.seal,
    open: (sealed) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = opened.get(sealed)
        if (hit !== undefined && hit.until > now) return Effect.succeed(hit.plaintext)
        return Effect.tap(box.open(sealed), (plaintext) =>
          Effect.sync(() => {
            opened.delete(sealed)
            opened.set(sealed, { plaintext, until: now + OPENED_TTL_MS })
            if (opened.size > OPENED_CAPACITY) opened.delete(opened.keys().next().value!)
          }))
      })
  })
}
