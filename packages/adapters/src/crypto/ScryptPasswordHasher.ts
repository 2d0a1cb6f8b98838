/**
 * Members' passwords at rest (issue 17): scrypt, the memory-hard KDF of `node:crypto` (Node and
 * Deno both have it; WebCrypto has no memory-hard KDF).
 *
 * Parameters: N = 2^15 (cost), r = 8 (block size), p = 1, a 16-byte random salt, a 32-byte key:
 * 32 MiB of memory and some tens of milliseconds per hash, OWASP's scrypt recommendation. Each hash
 * is encoded with its parameters, `$scrypt$ln=15,r=8,p=1$<salt>$<key>` (base64, no padding), so the
 * parameters can be raised later: old hashes still verify with the parameters they name.
 *
 * Why not SHA-256 as for API keys (`ApiKeyHash`): people choose passwords, and a stolen hash of a
 * guessable password must be expensive to guess at; 32 random bytes need no such cost.
 */
import { PasswordHasher } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

export interface Parameters {
  /** log2 of N, the CPU/memory cost. */
  readonly logCost: number
  readonly blockSize: number
  readonly parallelization: number
}

export const defaults: Parameters = { logCost: 15, blockSize: 8, parallelization: 1 }

const saltBytes = 16
const keyBytes = 32

const derive = (password: string, salt: Buffer, parameters: Parameters): Effect.Effect<Buffer> =>
  Effect.callback<Buffer>((resume) => {
    const N = 2 ** parameters.logCost
    scrypt(
      password.normalize("NFC"),
      salt,
      keyBytes,
      // maxmem: 128 * N * r is what scrypt needs; Node's default (32 MiB) is just short of N = 2^15
      { N, r: parameters.blockSize, p: parameters.parallelization, maxmem: 256 * N * parameters.blockSize },
      (error, key) => resume(error ? Effect.die(error) : Effect.succeed(key))
    )
  })

const b64 = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "")

export const encode = (parameters: Parameters, salt: Buffer, key: Buffer): string =>
  `$scrypt$ln=${parameters.logCost},r=${parameters.blockSize},p=${parameters.parallelization}$${b64(salt)}$${b64(key)}`

const pattern = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

/** The parameters, salt and key of an encoded hash; `undefined` when it is not one. */
export const decode = (encoded: string): { parameters: Parameters; salt: Buffer; key: Buffer } | undefined => {
  const match = pattern.exec(encoded)
  if (match === null) return undefined
  const parameters = { logCost: Number(match[1]), blockSize: Number(match[2]), parallelization: Number(match[3]) }
  if (parameters.logCost < 1 || parameters.logCost > 22 || parameters.blockSize < 1 || parameters.parallelization < 1) return undefined
  return { parameters, salt: Buffer.from(match[4]!, "base64"), key: Buffer.from(match[5]!, "base64") }
}

export const make = (parameters: Parameters = defaults): Effect.Effect<typeof PasswordHasher.Service> =>
  Effect.gen(function*() {
    const hash = (password: string) => {
      const salt = randomBytes(saltBytes)
      return Effect.map(derive(password, salt, parameters), (key) => encode(parameters, salt, key))
    }
    // what an unknown account is checked against: same parameters, so the same time
    const dummy = decode(yield* hash(b64(randomBytes(24))))!
    return PasswordHasher.of({
      hash,
      verify: (password, encoded) => {
        const stored = encoded === null ? undefined : decode(encoded)
        const against = stored ?? dummy
        return Effect.map(
          derive(password, against.salt, against.parameters),
          (key) => stored !== undefined && key.length === stored.key.length && timingSafeEqual(key, stored.key)
        )
      }
    })
  })

/** The production layer (`defaults`); tests may pass cheaper parameters. */
export const layer = (parameters: Parameters = defaults): Layer.Layer<PasswordHasher> => Layer.effect(PasswordHasher, make(parameters))
