/**
 * The key that seals secrets at rest (contracts 1): `IMAGE_POLICY_SECRET_KEY`, base64 of 32 bytes.
 * Without it, the embedded `pglite:DIR` store keeps a generated key in `DIR/secret.key` (mode 0600),
 * so the key lives and dies with the data it protects. The memory store gets a key for this process
 * only (its data does not outlive the process either). A `postgres://` store has no directory of its
 * own and may be shared by several hosts, which must all hold the same key: there the variable is
 * required.
 *
 * `resolve` runs at start so a bad key stops the host before it serves; the sealing code (webhook
 * secrets, VCS tokens) turns the answer into a SecretBox with `AesGcmSecretBox.layerFromKey(key.base64)`.
 * Nothing here ever logs or echoes the key.
 */
import { AesGcmSecretBox, type StoreConfig } from "@image-policy/adapters"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Result from "effect/Result"

export const envVar = "IMAGE_POLICY_SECRET_KEY"
/**
 * Keys the store's secrets were sealed under before the current one, comma-separated: values
 * sealed under them still open (AesGcmSecretBox.withPrevious) until `image-policy secrets reseal`
 * has sealed everything under the current key (docs/deploy.md, rotating the secret key).
 */
export const previousEnvVar = "IMAGE_POLICY_SECRET_KEY_PREVIOUS"
export const fileName = "secret.key"

export interface SecretKey {
  /** Base64 of 32 bytes, the format of `IMAGE_POLICY_SECRET_KEY`. */
  readonly base64: string
  /** Where it came from: the variable, `DIR/secret.key` (read or just generated), or this process only. */
  readonly source: "env" | "file" | "generated" | "ephemeral"
  readonly path?: string | undefined
  /** `IMAGE_POLICY_SECRET_KEY_PREVIOUS`: keys that open, never seal. */
  readonly previous?: ReadonlyArray<string> | undefined
}

export class SecretKeyError extends Data.TaggedError("SecretKeyError")<{
  readonly reason: "invalid" | "missing" | "io"
  /** Never contains the key. */
  readonly message: string
}> {}

/** The key file of a `pglite:DIR` store. */
export const filePath = (path: Path.Path, dataDir: string) => path.join(dataDir, fileName)

const checked = (base64: string, where: string) =>
  Result.match(AesGcmSecretBox.decodeKey(base64), {
    onFailure: (e) => Effect.fail(new SecretKeyError({ reason: "invalid", message: `${where}: ${e.message}` })),
    onSuccess: () => Effect.succeed(base64.trim())
  })

const io = (what: string) => (e: { readonly message: string }) => new SecretKeyError({ reason: "io", message: `${what}: ${e.message}` })

const fromFile = (file: string, dataDir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (yield* Effect.mapError(fs.exists(file), io(`cannot read ${file}`))) {
      const text = yield* Effect.mapError(fs.readFileString(file), io(`cannot read ${file}`))
      return { base64: yield* checked(text, file), source: "file", path: file } satisfies SecretKey
    }
    const base64 = AesGcmSecretBox.generateKey()
    yield* Effect.mapError(fs.makeDirectory(dataDir, { recursive: true }), io(`cannot create ${dataDir}`))
    // `wx`: two hosts starting on one new directory must not overwrite each other's key
    const written = yield* fs.writeFileString(file, `${base64}\n`, { flag: "wx", mode: 0o600 }).pipe(Effect.result)
    if (Result.isFailure(written)) {
      if (written.failure.reason._tag === "AlreadyExists") {
        const text = yield* Effect.mapError(fs.readFileString(file), io(`cannot read ${file}`))
        return { base64: yield* checked(text, file), source: "file", path: file } satisfies SecretKey
      }
      return yield* Effect.fail(io(`cannot write ${file}`)(written.failure))
    }
    return { base64, source: "generated", path: file } satisfies SecretKey
  })

/**
 * The secret key for a store: the variable when set (validated), else per store as described
 * above. `env` is the process environment (a parameter so Deno and tests can pass their own).
 */
export const resolve = (
  store: StoreConfig.StoreSpec,
  env: Readonly<Record<string, string | undefined>>
): Effect.Effect<SecretKey, SecretKeyError, FileSystem.FileSystem | Path.Path> =>
  Effect.map(
    Effect.all([current(store, env), previousKeys(env)]),
    ([key, previous]) => previous.length === 0 ? key : { ...key, previous }
  )

const previousKeys = (env: Readonly<Record<string, string | undefined>>) =>
  Effect.forEach(
    (env[previousEnvVar] ?? "").split(",").map((key) => key.trim()).filter((key) => key !== ""),
    // the position, never the key, names a bad one
    (key, i) => checked(key, `${previousEnvVar} (key ${i + 1})`)
  )

const current = (store: StoreConfig.StoreSpec, env: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function*() {
    const fromEnv = env[envVar]
    if (fromEnv !== undefined && fromEnv.trim() !== "") {
      return { base64: yield* checked(fromEnv, envVar), source: "env" } satisfies SecretKey
    }
    switch (store._tag) {
      case "memory":
        return { base64: AesGcmSecretBox.generateKey(), source: "ephemeral" } satisfies SecretKey
      case "pglite": {
        const path = yield* Path.Path
        return yield* fromFile(filePath(path, store.dataDir), store.dataDir)
      }
      case "postgres":
        return yield* new SecretKeyError({
          reason: "missing",
          message: `${envVar} is required with a postgres:// store (every host sharing the database needs the ` +
            "same key); generate one with: node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\""
        })
    }
  })
