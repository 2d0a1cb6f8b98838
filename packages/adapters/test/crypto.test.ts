import { assert, describe, it } from "@effect/vitest"
import { Id, Ids, PasswordHasher, SecretBox, SecretHasher, SecretUnavailable } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import * as fc from "fast-check"
import { effectProp } from "../../core/test/support/fcProp.js"
import * as AesGcmSecretBox from "../src/crypto/AesGcmSecretBox.js"
import * as ApiKeyHash from "../src/crypto/ApiKeyHash.js"
import * as RandomIds from "../src/crypto/RandomIds.js"
import * as ScryptPasswordHasher from "../src/crypto/ScryptPasswordHasher.js"
import { unicodeText } from "./arbitraries.js"
import { layerSeeded } from "./support/seededIds.js"

const key = AesGcmSecretBox.generateKey()
const otherKey = AesGcmSecretBox.generateKey()
const box = (base64Key: string) => Effect.provide(SecretBox, AesGcmSecretBox.layerFromKey(base64Key))

// Flips one bit of the ciphertext part of a sealed value.
const tamper = (sealed: string): string => {
  const [version, iv, ciphertext] = sealed.split(".") as [string, string, string]
  const bytes = Result.getOrThrow(Base64Url.decode(ciphertext))
  bytes[0] = bytes[0]! ^ 1
  return `${version}.${iv}.${Base64Url.encode(bytes)}`
}

describe("AesGcmSecretBox", () => {
  effectProp("open(seal(s)) == s for any string", [unicodeText({ maxLength: 200 })], ([plain]) =>
    Effect.gen(function*() {
      const secrets = yield* box(key)
      assert.strictEqual(yield* secrets.open(yield* secrets.seal(plain)), plain)
    }))

  it.effect("seals to v1.<iv>.<ciphertext>, never containing the plaintext, with a fresh IV each time", () =>
    Effect.gen(function*() {
      const secrets = yield* box(key)
      const plain = "ghp_SuperSecretToken1234567890"
      const first = yield* secrets.seal(plain)
      const second = yield* secrets.seal(plain)
      assert.match(first, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/)
      assert.notInclude(first, plain)
      assert.notInclude(first, Base64Url.encode(plain))
      assert.notStrictEqual(first, second)
    }))

  it.effect("a tampered value fails with decrypt-failed and a message without secrets", () =>
    Effect.gen(function*() {
      const secrets = yield* box(key)
      const error = yield* Effect.flip(secrets.open(tamper(yield* secrets.seal("webhook-signing-secret"))))
      assert.strictEqual(error.reason, "decrypt-failed")
      assert.notInclude(error.message, "webhook-signing-secret")
      assert.notInclude(error.message, key)
    }))

  it.effect("a value sealed under another key fails with decrypt-failed", () =>
    Effect.gen(function*() {
      const sealed = yield* Effect.flatMap(box(otherKey), (s) => s.seal("token"))
      const error = yield* Effect.flip(Effect.flatMap(box(key), (s) => s.open(sealed)))
      assert.strictEqual(error.reason, "decrypt-failed")
    }))

  it.effect("with previous keys: seals under the current key, opens values of the current and the previous keys", () =>
    Effect.gen(function*() {
      const third = AesGcmSecretBox.generateKey()
      const rotated = yield* Effect.provide(SecretBox, AesGcmSecretBox.layerFromKey(key, [otherKey, third]))
      const old = yield* (yield* box(otherKey)).seal("token under the old key")
      const older = yield* (yield* box(third)).seal("token under an older key")
      assert.strictEqual(yield* rotated.open(old), "token under the old key")
      assert.strictEqual(yield* rotated.open(older), "token under an older key")
      // what it seals opens under the current key alone, not under a previous one
      const fresh = yield* rotated.seal("new")
      assert.strictEqual(yield* (yield* box(key)).open(fresh), "new")
      const underOld = yield* Effect.flip((yield* box(otherKey)).open(fresh))
      assert.strictEqual(underOld.reason, "decrypt-failed")
      // a value no key opens still fails as decrypt-failed; malformed stays malformed
      const stranger = yield* (yield* box(AesGcmSecretBox.generateKey())).seal("x")
      assert.strictEqual((yield* Effect.flip(rotated.open(stranger))).reason, "decrypt-failed")
      assert.strictEqual((yield* Effect.flip(rotated.open("v1.x"))).reason, "malformed")
    }))

  it.effect("malformed input is reported as malformed", () =>
    Effect.gen(function*() {
      const secrets = yield* box(key)
      for (const input of ["", "plain text", "v2.AAAAAAAAAAAAAAAA.AAAA", "v1.AAAA.AAAAAAAAAAAAAAAAAAAAAAAA", "v1.!!!.???"]) {
        const error = yield* Effect.flip(secrets.open(input))
        assert.strictEqual(error.reason, "malformed", input)
      }
    }))

  effectProp("random input never throws: it opens to a typed error", [fc.string()], ([input]) =>
    Effect.gen(function*() {
      const secrets = yield* box(key)
      const error = yield* Effect.flip(secrets.open(input))
      assert.strictEqual(error._tag, "SecretUnavailable")
    }))

  it.effect("a key that is not 32 bytes of base64 fails with bad-key, without echoing it", () =>
    Effect.gen(function*() {
      for (const bad of ["not base64 at all!", Base64.encode(new Uint8Array(16))]) {
        const error = yield* Effect.flip(box(bad))
        assert.strictEqual(error.reason, "bad-key")
        assert.notInclude(error.message, bad)
      }
    }))

  it("generateKey gives 32 random bytes in base64", () => {
    const bytes = Result.getOrThrow(Base64.decode(AesGcmSecretBox.generateKey()))
    assert.strictEqual(bytes.length, 32)
    assert.notStrictEqual(AesGcmSecretBox.generateKey(), AesGcmSecretBox.generateKey())
  })
})

describe("ApiKeyHash", () => {
  it.effect("hashes to the hex SHA-256 of the secret", () =>
    Effect.gen(function*() {
      // SHA-256("abc"), FIPS 180-2 test vector
      assert.strictEqual(
        yield* ApiKeyHash.hashSecret("abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
      )
    }))

  effectProp("verify(s, hash(s)) holds and another secret does not verify", [fc.string(), fc.string()], ([a, b]) =>
    Effect.gen(function*() {
      const hash = yield* ApiKeyHash.hashSecret(a)
      assert.isTrue(yield* ApiKeyHash.verifySecret(a, hash))
      assert.strictEqual(yield* ApiKeyHash.verifySecret(b, hash), a === b)
    }))

  it.effect("a malformed stored hash never verifies", () =>
    Effect.gen(function*() {
      const hash = yield* ApiKeyHash.hashSecret("secret")
      assert.isFalse(yield* ApiKeyHash.verifySecret("secret", hash.slice(0, 63)))
      assert.isFalse(yield* ApiKeyHash.verifySecret("secret", ""))
      assert.isTrue(yield* ApiKeyHash.verifySecret("secret", hash.toUpperCase()))
    }))
})

describe("ApiKeyHash.cached", () => {
  /** A hasher that counts how often it really hashes. */
  const counting = () => {
    const calls: Array<string> = []
    return { calls, hash: (secret: string) => Effect.map(Effect.sync(() => calls.push(secret)), () => `hash:${secret}`) }
  }

  it.effect("answers what the hasher answers, hashing a secret seen before only once", () =>
    Effect.gen(function*() {
      const inner = counting()
      const hasher = ApiKeyHash.cached(inner.hash, 10)
      assert.strictEqual(yield* hasher.hash("a"), "hash:a")
      assert.strictEqual(yield* hasher.hash("a"), "hash:a")
      assert.strictEqual(yield* hasher.hash("b"), "hash:b")
      assert.deepStrictEqual(inner.calls, ["a", "b"])
    }))

  it.effect("holds at most `capacity` secrets, evicting the oldest first", () =>
    Effect.gen(function*() {
      const inner = counting()
      const hasher = ApiKeyHash.cached(inner.hash, 2)
      for (const secret of ["a", "b", "c", "c", "b"]) yield* hasher.hash(secret)
      assert.deepStrictEqual(inner.calls, ["a", "b", "c"])
      // "a" was evicted by "c"; hashing it again evicts "b"
      yield* hasher.hash("a")
      yield* hasher.hash("c")
      yield* hasher.hash("b")
      assert.deepStrictEqual(inner.calls, ["a", "b", "c", "a", "b"])
    }))

  it.effect("cachedLayer is the SecretHasher port over hashSecret", () =>
    Effect.gen(function*() {
      const hasher = yield* Effect.provide(SecretHasher, ApiKeyHash.cachedLayer())
      assert.strictEqual(yield* hasher.hash("abc"), yield* ApiKeyHash.hashSecret("abc"))
      assert.strictEqual(yield* hasher.hash("abc"), yield* ApiKeyHash.hashSecret("abc"))
    }))
})

describe("AesGcmSecretBox.openedCache", () => {
  /** A box that counts how often it really opens; `bad` cannot be opened. */
  const counting = () => {
    const opened: Array<string> = []
    const box = SecretBox.of({
      seal: (plaintext) => Effect.succeed(`sealed:${plaintext}`),
      open: (sealed) =>
        sealed === "bad"
          ? Effect.sync(() => opened.push(sealed)).pipe(Effect.andThen(Effect.fail(new SecretUnavailable({ reason: "malformed" }))))
          : Effect.sync(() => opened.push(sealed)).pipe(Effect.as(`plain:${sealed}`))
    })
    return { opened, box }
  }

  it.effect("opens a sealed value once per minute and seals through", () =>
    Effect.gen(function*() {
      const inner = counting()
      const box = AesGcmSecretBox.openedCache(inner.box)
      assert.strictEqual(yield* box.seal("x"), "sealed:x")
      assert.strictEqual(yield* box.open("s1"), "plain:s1")
      yield* TestClock.adjust(59_999)
      assert.strictEqual(yield* box.open("s1"), "plain:s1")
      assert.deepStrictEqual(inner.opened, ["s1"])
      yield* TestClock.adjust(1)
      assert.strictEqual(yield* box.open("s1"), "plain:s1")
      assert.deepStrictEqual(inner.opened, ["s1", "s1"])
    }))

  it.effect("does not remember a failure", () =>
    Effect.gen(function*() {
      const inner = counting()
      const box = AesGcmSecretBox.openedCache(inner.box)
      for (let i = 0; i < 2; i++) {
        const error = yield* Effect.flip(box.open("bad"))
        assert.strictEqual(error.reason, "malformed")
      }
      assert.deepStrictEqual(inner.opened, ["bad", "bad"])
    }))

  it.effect("holds at most 1,024 values, dropping the oldest first", () =>
    Effect.gen(function*() {
      const inner = counting()
      const box = AesGcmSecretBox.openedCache(inner.box)
      for (let i = 0; i <= 1_024; i++) yield* box.open(`s${i}`)
      assert.strictEqual(inner.opened.length, 1_025)
      yield* box.open("s1024")
      yield* box.open("s1")
      assert.strictEqual(inner.opened.length, 1_025)
      yield* box.open("s0")
      assert.strictEqual(inner.opened.length, 1_026)
    }))

  it.effect("over the WebCrypto box: opens what it sealed", () =>
    Effect.gen(function*() {
      const cached = AesGcmSecretBox.openedCache(yield* box(key))
      const sealed = yield* cached.seal("hooks.example.com/secret")
      assert.strictEqual(yield* cached.open(sealed), "hooks.example.com/secret")
      assert.strictEqual(yield* cached.open(sealed), "hooks.example.com/secret")
    }))
})

describe("RandomIds", () => {
  const idPattern = /^repo_[0-9a-z]{26}$/

  it.effect("gives well-formed, distinct ids and the requested number of bytes", () =>
    Effect.gen(function*() {
      const ids = yield* Ids
      const generated = yield* Effect.all(Array.from({ length: 100 }, () => ids.next("repository")))
      for (const id of generated) assert.match(id, idPattern)
      assert.strictEqual(new Set(generated).size, 100)
      assert.strictEqual((yield* ids.randomBytes(32)).length, 32)
      assert.strictEqual((yield* ids.randomBytes(70_000)).length, 70_000)
    }).pipe(Effect.provide(RandomIds.layer)))

  it.effect("the seeded layer repeats its sequence for the same seed and differs for another", () =>
    Effect.gen(function*() {
      const run = (seed: number) =>
        Effect.provide(
          Effect.flatMap(Ids, (ids) => Effect.all([ids.next("organization"), ids.next("apiKey"), ids.randomBytes(8)])),
          layerSeeded(seed)
        )
      const [a, b, c] = yield* Effect.all([run(7), run(7), run(8)])
      assert.deepStrictEqual(a, b)
      assert.notDeepEqual(a, c)
      assert.isTrue(a[0].startsWith(`${Id.prefixes.organization}_`))
      assert.isTrue(a[1].startsWith(`${Id.prefixes.apiKey}_`))
      assert.notStrictEqual(a[0].slice(4), a[1].slice(4))
    }))
})

describe("ScryptPasswordHasher", () => {
  const hasher = (parameters?: ScryptPasswordHasher.Parameters) => Effect.provide(PasswordHasher, ScryptPasswordHasher.layer(parameters))

  // the host's suites sign in with cheaper parameters (docs/sessions.md): this is where the production ones are held
  it.effect("production: N = 2^15, r = 8, p = 1, a 16-byte salt and a 32-byte key, named in the hash; it verifies the right password only", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(ScryptPasswordHasher.defaults, { logCost: 15, blockSize: 8, parallelization: 1 })
      const passwords = yield* hasher()
      const encoded = yield* passwords.hash("correct horse battery staple")
      assert.match(encoded, /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/)
      const decoded = ScryptPasswordHasher.decode(encoded)!
      assert.deepStrictEqual(decoded.parameters, ScryptPasswordHasher.defaults)
      assert.strictEqual(decoded.salt.length, 16)
      assert.strictEqual(decoded.key.length, 32)
      assert.notStrictEqual(yield* passwords.hash("correct horse battery staple"), encoded)
      assert.isTrue(yield* passwords.verify("correct horse battery staple", encoded))
      assert.isFalse(yield* passwords.verify("correct horse battery stapler", encoded))
      assert.isFalse(yield* passwords.verify("correct horse battery staple", null))
    }))

  it.effect("a hash verifies with the parameters it names, whatever the hasher's own", () =>
    Effect.gen(function*() {
      const cheap = yield* hasher({ logCost: 10, blockSize: 8, parallelization: 1 })
      const encoded = yield* cheap.hash("an older, cheaper hash")
      assert.match(encoded, /^\$scrypt\$ln=10,r=8,p=1\$/)
      const production = yield* hasher()
      assert.isTrue(yield* production.verify("an older, cheaper hash", encoded))
      assert.isFalse(yield* production.verify("another password", encoded))
      assert.isFalse(yield* production.verify("an older, cheaper hash", "$scrypt$ln=10,r=8,p=1$not-base64!$x"))
    }))
})
