/**
 * IP address classification for the webhook SSRF guard (spec 6 "Delivery": loopback, link-local,
 * private, reserved and mixed public/private destinations are rejected). The adapters resolve DNS
 * and parse URLs; this module decides, from the IANA special-purpose registries (IPv4 and IPv6),
 * which addresses are public.
 */
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

export interface IpAddress {
  readonly version: 4 | 6
  /** 4 or 16 bytes, network order. */
  readonly bytes: ReadonlyArray<number>
}

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "multicast"
  | "reserved"
  | "unspecified"
  | "documentation"
  | "benchmarking"
  | "broadcast"
  | "ipv4-mapped"
  | "unique-local"
  | "site-local"

const v4 = (bytes: ReadonlyArray<number>): IpAddress => ({ version: 4, bytes })

/** Strict dotted quad: four decimal octets without leading zeros. */
const parseIPv4 = (text: string): Option.Option<IpAddress> => {
  const parts = text.split(".")
  if (parts.length !== 4) return Option.none()
  const bytes: Array<number> = []
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return Option.none()
    bytes.push(Number(part))
  }
  return Option.some(v4(bytes))
}

/**
 * The legacy inet_aton spellings that URL parsers still accept (`2130706433`, `0x7f000001`,
 * `0177.0.0.1`, `127.1`): a host that is really an IP literal must be classified as one.
 */
export const parseLooseIPv4 = (text: string): Option.Option<IpAddress> => {
  const parts = text.endsWith(".") ? text.slice(0, -1).split(".") : text.split(".")
  if (parts.length < 1 || parts.length > 4) return Option.none()
  const values: Array<number> = []
  for (const part of parts) {
    let value: number
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16)
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8)
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part)
    else return Option.none()
    if (!Number.isSafeInteger(value)) return Option.none()
    values.push(value)
  }
  const last = values.pop()!
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return Option.none()
  const bytes = [...values]
  for (let i = 3 - values.length; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256)
  return Option.some(v4(bytes))
}

const parseIPv6 = (input: string): Option.Option<IpAddress> => {
  let text = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input
  if (text.includes("%") || !/^[0-9a-fA-F:.]+$/.test(text)) return Option.none()
  let tail: Array<number> = []
  const lastColon = text.lastIndexOf(":")
  if (text.slice(lastColon + 1).includes(".")) {
    const embedded = parseIPv4(text.slice(lastColon + 1))
    if (Option.isNone(embedded)) return Option.none()
    const b = embedded.value.bytes
    tail = [(b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!]
    // a placeholder group that expands to the two words of the embedded IPv4 address
    text = text.slice(0, lastColon + 1) + "_"
  }
  const halves = text.split("::")
  if (halves.length > 2) return Option.none()
  const groups = (s: string) => (s === "" ? [] : s.split(":"))
  const head = groups(halves[0]!)
  const rest = halves.length === 2 ? groups(halves[1]!) : []
  const parse = (g: string): number | undefined => g === "_" ? -1 : /^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : undefined
  const headValues = head.map(parse)
  const restValues = rest.map(parse)
  if ([...headValues, ...restValues].some((v) => v === undefined)) return Option.none()
  const expand = (vs: Array<number | undefined>) => vs.flatMap((v) => (v === -1 ? tail : [v!]))
  const h = expand(headValues)
  const r = expand(restValues)
  const missing = 8 - h.length - r.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return Option.none()
  const words = [...h, ...Array(halves.length === 2 ? missing : 0).fill(0), ...r]
  return Option.some({ version: 6, bytes: words.flatMap((w) => [w >> 8, w & 255]) })
}

/** IPv4 dotted quad or any IPv6 text form (with or without brackets; zone ids refused). */
export const parseIpAddress = (text: string): Option.Option<IpAddress> => text.includes(":") ? parseIPv6(text) : parseIPv4(text)

const inV4 = (b: ReadonlyArray<number>, prefix: ReadonlyArray<number>, bits: number) => {
  const value = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0
  const base = ((prefix[0]! << 24) | ((prefix[1] ?? 0) << 16) | ((prefix[2] ?? 0) << 8) | (prefix[3] ?? 0)) >>> 0
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
  return (value & mask) === (base & mask)
}

const v4Ranges: ReadonlyArray<readonly [ReadonlyArray<number>, number, AddressClass]> = [
  [[0, 0, 0, 0], 32, "unspecified"],
  [[0], 8, "reserved"],
  [[10], 8, "private"],
  [[100, 64], 10, "cgnat"],
  [[127], 8, "loopback"],
  [[169, 254], 16, "link-local"],
  [[172, 16], 12, "private"],
  [[192, 0, 0], 24, "reserved"],
  [[192, 0, 2], 24, "documentation"],
  [[192, 31, 196], 24, "reserved"],
  [[192, 52, 193], 24, "reserved"],
  [[192, 88, 99], 24, "reserved"],
  [[192, 168], 16, "private"],
  [[192, 175, 48], 24, "reserved"],
  [[198, 18], 15, "benchmarking"],
  [[198, 51, 100], 24, "documentation"],
  [[203, 0, 113], 24, "documentation"],
  [[255, 255, 255, 255], 32, "broadcast"],
  [[224], 4, "multicast"],
  [[240], 4, "reserved"]
]

const classifyV4 = (b: ReadonlyArray<number>): AddressClass => v4Ranges.find(([prefix, bits]) => inV4(b, prefix, bits))?.[2] ?? "public"

const startsWith = (b: ReadonlyArray<number>, prefix: ReadonlyArray<number>, bits: number) => {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3
    const bit = 7 - (i & 7)
    if (((b[byte]! >> bit) & 1) !== (((prefix[byte] ?? 0) >> bit) & 1)) return false
  }
  return true
}

const classifyV6 = (b: ReadonlyArray<number>): AddressClass => {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0)
  if (zero(0, 16)) return "unspecified"
  if (zero(0, 15) && b[15] === 1) return "loopback"
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return "ipv4-mapped" // ::ffff:0:0/96
  if (zero(0, 12)) return "ipv4-mapped" // deprecated IPv4-compatible ::/96
  if (startsWith(b, [0x00, 0x64, 0xff, 0x9b], 96) || startsWith(b, [0x20, 0x02], 16)) {
    // NAT64 and 6to4 embed an IPv4 address: a non-public one makes the whole address non-public
    const embedded = b[0] === 0x20 ? b.slice(2, 6) : b.slice(12, 16)
    const cls = classifyV4(embedded)
    return cls === "public" ? (b[0] === 0x20 ? "reserved" : "public") : cls
  }
  if (startsWith(b, [0x20, 0x01, 0x0d, 0xb8], 32) || startsWith(b, [0x3f, 0xff], 20)) return "documentation"
  if (startsWith(b, [0x20, 0x01, 0x00, 0x02], 48)) return "benchmarking"
  if (startsWith(b, [0x20, 0x01], 23)) return "reserved" // IETF protocol assignments, Teredo included
  if (startsWith(b, [0xfc], 7)) return "unique-local"
  if (startsWith(b, [0xfe, 0x80], 10)) return "link-local"
  if (startsWith(b, [0xfe, 0xc0], 10)) return "site-local"
  if (startsWith(b, [0xff], 8)) return "multicast"
  if (!startsWith(b, [0x20], 3)) return "reserved" // outside global unicast 2000::/3
  return "public"
}

export const classifyAddress = (ip: IpAddress): AddressClass => ip.version === 4 ? classifyV4(ip.bytes) : classifyV6(ip.bytes)

export const formatIpAddress = (ip: IpAddress): string =>
  ip.version === 4
    ? ip.bytes.join(".")
    : Array.from({ length: 8 }, (_, i) => ((ip.bytes[2 * i]! << 8) | ip.bytes[2 * i + 1]!).toString(16)).join(":")

export class UnsafeDestination extends Schema.TaggedError<UnsafeDestination>()("UnsafeDestination", {
  host: Schema.String,
  reason: Schema.Literals(["no-addresses", "non-public", "mixed", "not-an-ip"]),
  classes: Schema.Array(Schema.String)
}) {
  override get message() {
    return this.reason === "no-addresses"
      ? "the destination host has no addresses"
      : this.reason === "mixed"
      ? "the destination resolves to public and non-public addresses"
      : this.reason === "not-an-ip"
      ? "the resolver answered something that is not an IP address"
      : `the destination is not public (${this.classes.join(", ")})`
  }
}

/**
 * Checks a resolver's whole answer: every address must be public. A set that mixes public and
 * non-public addresses is refused as a whole (a DNS-rebinding setup looks exactly like that).
 */
export const checkResolvedAddresses = (
  host: string,
  addresses: ReadonlyArray<string>
): Result.Result<ReadonlyArray<IpAddress>, UnsafeDestination> => {
  if (addresses.length === 0) return Result.fail(new UnsafeDestination({ host, reason: "no-addresses", classes: [] }))
  const parsed: Array<IpAddress> = []
  for (const text of addresses) {
    const ip = parseIpAddress(text)
    if (Option.isNone(ip)) return Result.fail(new UnsafeDestination({ host, reason: "not-an-ip", classes: [] }))
    parsed.push(ip.value)
  }
  const classes = parsed.map(classifyAddress)
  const nonPublic = [...new Set(classes.filter((c) => c !== "public"))]
  if (nonPublic.length === 0) return Result.succeed(parsed)
  return Result.fail(
    new UnsafeDestination({
      host,
      reason: nonPublic.length < classes.length && classes.includes("public") ? "mixed" : "non-public",
      classes: nonPublic
    })
  )
}
