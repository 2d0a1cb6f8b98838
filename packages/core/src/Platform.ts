/**
 * Platform scopes `os/arch[/variant]` (OCI image index platforms), validated against the known
 * GOOS/GOARCH values and normalized the way containerd does, so `linux/aarch64`, `linux/arm64/v8`
 * and `linux/arm64` are one scope.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

export interface Platform {
  readonly os: string
  readonly architecture: string
  readonly variant?: string
}

export class InvalidPlatform extends Schema.TaggedError<InvalidPlatform>()("InvalidPlatform", {
  input: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `invalid platform: ${this.reason}`
  }
}

const operatingSystems = new Set([
  "aix",
  "android",
  "darwin",
  "dragonfly",
  "freebsd",
  "illumos",
  "ios",
  "js",
  "linux",
  "netbsd",
  "openbsd",
  "plan9",
  "solaris",
  "wasip1",
  "windows"
])
const architectures = new Set([
  "386",
  "amd64",
  "arm",
  "arm64",
  "loong64",
  "mips",
  "mipsle",
  "mips64",
  "mips64le",
  "ppc64",
  "ppc64le",
  "riscv64",
  "s390x",
  "wasm"
])
const archAliases: Record<string, { readonly architecture: string; readonly variant?: string }> = {
  "i386": { architecture: "386" },
  "x86_64": { architecture: "amd64" },
  "x86-64": { architecture: "amd64" },
  "aarch64": { architecture: "arm64" },
  "armhf": { architecture: "arm", variant: "v7" },
  "armel": { architecture: "arm", variant: "v6" }
}
const variantPattern: Record<string, RegExp> = {
  arm: /^v[5-8]$/,
  arm64: /^v8(\.[0-9])?$|^v9(\.[0-9])?$/,
  amd64: /^v[1-4]$/
}

const fail = (input: string, reason: string) => Result.fail(new InvalidPlatform({ input: input.slice(0, 100), reason }))

export const parsePlatform = (text: string): Result.Result<Platform, InvalidPlatform> => {
  const parts = text.trim().toLowerCase().split("/")
  if (parts.length < 2 || parts.length > 3) return fail(text, "expected os/arch or os/arch/variant, e.g. linux/amd64")
  const [os = "", rawArch = "", rawVariant] = parts
  if (!operatingSystems.has(os)) return fail(text, `unknown operating system "${os.slice(0, 20)}"`)
  const alias = archAliases[rawArch]
  const architecture = alias?.architecture ?? rawArch
  if (!architectures.has(architecture)) return fail(text, `unknown architecture "${rawArch.slice(0, 20)}"`)
  let variant = rawVariant ?? alias?.variant
  if (variant !== undefined) {
    const allowed = variantPattern[architecture]
    if (allowed === undefined || !allowed.test(variant)) {
      return fail(text, `unknown variant "${variant.slice(0, 20)}" for ${architecture}`)
    }
  }
  // containerd's normalization: the default variant is implied
  if (architecture === "arm" && variant === undefined) variant = "v7"
  if (architecture === "arm64" && variant === "v8") variant = undefined
  if (architecture === "amd64" && variant === "v1") variant = undefined
  return Result.succeed({ os, architecture, ...(variant !== undefined ? { variant } : {}) })
}

export const formatPlatform = (p: Platform): string => `${p.os}/${p.architecture}${p.variant !== undefined ? `/${p.variant}` : ""}`

/** The canonical text of a scope; "" when absent or empty (spec 2: absent platformScope equals empty). */
export const normalizePlatformScope = (text: string | undefined): Result.Result<string, InvalidPlatform> =>
  text === undefined || text.trim() === "" ? Result.succeed("") : Result.map(parsePlatform(text), formatPlatform)

/** A platform scope in a request body: must parse; kept as written (normalized by the mapping rules). */
export const PlatformScope = Schema.String.check(
  Schema.makeFilter((s) => Result.match(normalizePlatformScope(s), { onFailure: (e) => e.message, onSuccess: () => true }))
)
