/**
 * A package-lock.json for a directory that installs the packed workspaces (packaging.test.ts), so
 * `npm install --offline` needs nothing but npm's cache.
 *
 * Why a lockfile: to resolve a dependency that no lockfile pins, npm 11 asks for the registry's
 * full metadata document (`Accept: application/json`; arborist's `#fetchManifest` sets
 * `fullMetadata: true`). The repository's own `npm install` follows its lockfile and only ever
 * fetched the abbreviated documents (`application/vnd.npm.install-v1+json`), and npm's cache
 * answers a request only with a response to the same media types, so offline every dependency
 * would be `ENOTCACHED` although its tarball is in the cache. With a lockfile npm reads no
 * metadata at all: it fetches each tarball by its integrity, which the cache holds.
 *
 * The lock is cut from the repository's package-lock.json: the same versions the repository is
 * tested with, and only what the packed packages declare. From each workspace's `dependencies`,
 * `optionalDependencies` and required `peerDependencies` (npm installs those), each name is resolved
 * as Node would from where the lock places the dependent package, and followed. A dependency a
 * package uses but does not declare is therefore missing from the installation, as it would be
 * for a user. The workspaces themselves are the tarballs (`file:`), with the tarball's integrity.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"

interface LockEntry {
  readonly version?: string
  readonly dependencies?: Record<string, string>
  readonly optionalDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
  readonly dev?: boolean
  readonly devOptional?: boolean
  readonly [key: string]: unknown
}

export interface Packed {
  /** The workspace folder, e.g. `packages/host`. */
  readonly workspace: string
  /** The tarball's path. */
  readonly tarball: string
  /** How the installing package.json names it, e.g. `file:../tarballs/image-policy-host-0.1.0.tgz`. */
  readonly spec: string
}

const manifestOf = (root: string, workspace: string): LockEntry & { readonly name: string; readonly version: string } =>
  JSON.parse(readFileSync(join(root, workspace, "package.json"), "utf8"))

/** The package.json and package-lock.json of a directory named `name` that depends on every packed workspace. */
export const lockfileFor = (root: string, name: string, packed: ReadonlyArray<Packed>) => {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> }
  const locked = lock.packages
  const own = new Set(packed.map((p) => manifestOf(root, p.workspace).name))

  /** Where Node finds `dependency` from the package at `from`: its own node_modules, then each parent's. */
  const resolveFrom = (from: string, dependency: string): string | undefined => {
    for (let dir = from;;) {
      const candidate = dir === "" ? `node_modules/${dependency}` : `${dir}/node_modules/${dependency}`
      if (locked[candidate] !== undefined) return candidate
      if (dir === "") return undefined
      const parent = dir.lastIndexOf("/node_modules/")
      dir = parent === -1 ? "" : dir.slice(0, parent)
    }
  }

  const found = new Map<string, LockEntry>()
  const visit = (from: string, entry: LockEntry) => {
    const optionalPeers = entry.peerDependenciesMeta ?? {}
    const requiredPeers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => optionalPeers[peer]?.optional !== true)
    const optional = new Set(Object.keys(entry.optionalDependencies ?? {}))
    const names = [...Object.keys(entry.dependencies ?? {}), ...optional, ...requiredPeers]
    for (const dependency of names) {
      if (own.has(dependency)) continue
      const at = resolveFrom(from, dependency)
      if (at === undefined) {
        // an optional dependency for another platform: the repository's lock does not hold it either
        if (optional.has(dependency)) continue
        throw new Error(`${dependency} (needed by ${from}) is not in package-lock.json`)
      }
      if (found.has(at)) continue
      // the repository's dev flags do not hold here: every entry is a production dependency
      const { dev: _dev, devOptional: _devOptional, ...rest } = locked[at]!
      found.set(at, rest)
      visit(at, locked[at]!)
    }
  }

  const packages: Record<string, unknown> = {}
  const dependencies: Record<string, string> = {}
  for (const p of packed) {
    const manifest = manifestOf(root, p.workspace)
    dependencies[manifest.name] = p.spec
    packages[`node_modules/${manifest.name}`] = {
      version: manifest.version,
      resolved: p.spec,
      integrity: `sha512-${createHash("sha512").update(readFileSync(p.tarball)).digest("base64")}`,
      ...(manifest.dependencies === undefined ? {} : { dependencies: manifest.dependencies }),
      ...(manifest.bin === undefined ? {} : { bin: manifest.bin })
    }
    visit(p.workspace, manifest)
  }
  // a dependency nested under a workspace in the repository (packages/x/node_modules/y) sits under the installed package
  for (const [at, entry] of found) {
    packages[at.replace(/^packages\/([^/]+)\//, (_, folder: string) => `node_modules/${manifestOf(root, `packages/${folder}`).name}/`)] =
      entry
  }
  const packageJson = { name, version: "1.0.0", private: true, dependencies }
  return {
    packageJson,
    lockfile: {
      name,
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name, version: "1.0.0", dependencies }, ...packages }
    }
  }
}
