/**
 * Endpoint URLs as webhook destinations: syntax, scheme, credentials, and which host an attempt
 * must resolve (spec 6 "Delivery": HTTPS only; loopback, link-local, private, reserved and mixed
 * destinations are rejected). Pure: resolution and sockets live in the sender.
 *
 * A host that is an IP literal is classified as one, in any spelling. The WHATWG URL parser
 * already rewrites the legacy IPv4 forms of http(s) URLs (`2130706433`, `0x7f.1`, `0177.0.0.1`,
 * `127.1` all become `127.0.0.1`), but the check does not rely on that: a host name is also read
 * with the core's `parseLooseIPv4`, so a runtime whose URL parser differs cannot smuggle one past.
 */
import { Address, InvalidEndpoint } from "@image-policy/core"
import * as Option from "effect/Option"
import * as Result from "effect/Result"

export interface Target {
  readonly secure: boolean
  /** Lower-case host name or IP literal, IPv6 without brackets. */
  readonly hostname: string
  /** The host's address when the URL names an IP literal (no resolution then). */
  readonly literal: Option.Option<Address.IpAddress>
  readonly port: number
  /** The `Host` header: the URL's host, with the port when it is not the scheme's default. */
  readonly hostHeader: string
  /** Path and query; the fragment is never sent. */
  readonly path: string
}

const invalid = (reason: InvalidEndpoint["reason"]) => new InvalidEndpoint({ path: "endpointUrl", reason })

/** An IP literal host in any spelling: dotted quad, legacy IPv4 forms, or IPv6 (brackets optional). */
export const literalAddress = (hostname: string): Option.Option<Address.IpAddress> => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  return Option.orElse(Address.parseIpAddress(bare), () => bare.includes(":") ? Option.none() : Address.parseLooseIPv4(bare))
}

/**
 * Parses an endpoint URL. `https:` only, unless `allowHttp` (unsafe mode for local testing);
 * never a user name or password (they would travel in clear in logs of proxies and receivers, and
 * a URL with credentials cannot be shown masked safely).
 */
export const parse = (url: string, options: { readonly allowHttp: boolean }): Result.Result<Target, InvalidEndpoint> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Result.fail(invalid("malformed"))
  }
  const secure = parsed.protocol === "https:"
  if (!secure && !(options.allowHttp && parsed.protocol === "http:")) return Result.fail(invalid("not-https"))
  if (parsed.username !== "" || parsed.password !== "") return Result.fail(invalid("credentials"))
  const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname
  if (hostname === "") return Result.fail(invalid("malformed"))
  return Result.succeed({
    secure,
    hostname: hostname.toLowerCase(),
    literal: literalAddress(hostname),
    port: parsed.port === "" ? (secure ? 443 : 80) : Number(parsed.port),
    hostHeader: parsed.host,
    path: `${parsed.pathname}${parsed.search}`
  })
}

/**
 * Which of a resolver's answers an attempt may connect to. Safe mode: the core's check of the
 * whole answer (every address public, mixed sets refused). Unsafe mode: any address, but still
 * only IP addresses.
 */
export const checkAddresses = (
  hostname: string,
  addresses: ReadonlyArray<string>,
  options: { readonly allowUnsafe: boolean }
): Result.Result<ReadonlyArray<Address.IpAddress>, Address.UnsafeDestination> => {
  if (!options.allowUnsafe) return Address.checkResolvedAddresses(hostname, addresses)
  if (addresses.length === 0) {
    return Result.fail(new Address.UnsafeDestination({ host: hostname, reason: "no-addresses", classes: [] }))
  }
  const parsed = addresses.map((a) => Address.parseIpAddress(a))
  return parsed.every(Option.isSome)
    ? Result.succeed(parsed.map((p) => p.value))
    : Result.fail(new Address.UnsafeDestination({ host: hostname, reason: "not-an-ip", classes: [] }))
}

/**
 * The one address an attempt connects to. IPv4 first when the answer has both families: many
 * networks have no IPv6 route while dual-stack names list AAAA records first, and a single pinned
 * address (no fallback race) keeps "connects to what was checked" easy to reason about.
 */
export const pick = (addresses: ReadonlyArray<Address.IpAddress>): Address.IpAddress =>
  addresses.find((a) => a.version === 4) ?? addresses[0]!
