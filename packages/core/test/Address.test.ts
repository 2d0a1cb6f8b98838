import { assert, describe, it } from "@effect/vitest"
import { Option, Result } from "effect"
import * as fc from "fast-check"
import * as Address from "../src/Address.js"
import { prop } from "./support/fcProp.js"

const classOf = (text: string) => {
  const ip = Option.orElse(Address.parseIpAddress(text), () => Address.parseLooseIPv4(text))
  return Option.isSome(ip) ? Address.classifyAddress(ip.value) : "unparsed"
}

// address spelling -> class: everything but the last rows must be refused by the SSRF guard
const table: ReadonlyArray<readonly [string, string]> = [
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["2130706433", "loopback"],
  ["0x7f000001", "loopback"],
  ["0x7f.0.0.1", "loopback"],
  ["0177.0.0.1", "loopback"],
  ["017700000001", "loopback"],
  ["127.1", "loopback"],
  ["127.0.1", "loopback"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["0.0.0.0", "unspecified"],
  ["0", "unspecified"],
  ["::", "unspecified"],
  ["0.1.2.3", "reserved"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["169.254.169.254", "link-local"],
  ["fe80::1", "link-local"],
  ["fc00::1", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["fec0::1", "site-local"],
  ["224.0.0.1", "multicast"],
  ["ff02::1", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["2001:db8::1", "documentation"],
  ["198.18.0.1", "benchmarking"],
  ["::ffff:127.0.0.1", "ipv4-mapped"],
  ["[::ffff:7f00:1]", "ipv4-mapped"],
  ["::ffff:93.184.215.14", "ipv4-mapped"],
  ["::127.0.0.1", "ipv4-mapped"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::10.0.0.1", "private"],
  ["2002:7f00:1::", "loopback"],
  ["2001::1", "reserved"],
  ["100::1", "reserved"],
  ["fe80::1%eth0", "unparsed"],
  ["93.184.215.14", "public"],
  ["8.8.8.8", "public"],
  ["2606:4700::1111", "public"],
  ["64:ff9b::808:808", "public"]
]

describe("Address classification (SSRF guard)", () => {
  for (const [text, expected] of table) {
    it(`${text} is ${expected}`, () => assert.strictEqual(classOf(text), expected))
  }

  it("rejects empty, non-public and mixed resolver answers as a whole", () => {
    const check = (addresses: Array<string>) => Address.checkResolvedAddresses("hooks.example.com", addresses)
    assert.isTrue(Result.isSuccess(check(["93.184.215.14", "2606:4700::1111"])))
    const empty = check([])
    assert.isTrue(Result.isFailure(empty) && empty.failure.reason === "no-addresses")
    const mixed = check(["93.184.215.14", "127.0.0.1"])
    assert.isTrue(Result.isFailure(mixed) && mixed.failure.reason === "mixed")
    const internal = check(["10.0.0.1", "169.254.169.254"])
    assert.isTrue(Result.isFailure(internal) && internal.failure.reason === "non-public")
    if (Result.isFailure(internal)) assert.deepStrictEqual([...internal.failure.classes].sort(), ["link-local", "private"])
    const junk = check(["localhost"])
    assert.isTrue(Result.isFailure(junk) && junk.failure.reason === "not-an-ip")
  })

  const octet = fc.integer({ min: 0, max: 255 })
  prop("every address in 127/8 is loopback and in 10/8, 172.16/12, 192.168/16 private", [
    octet,
    octet,
    octet,
    fc.integer({ min: 16, max: 31 })
  ], ([a, b, c, x]) => {
    assert.strictEqual(classOf(`127.${a}.${b}.${c}`), "loopback")
    assert.strictEqual(classOf(`10.${a}.${b}.${c}`), "private")
    assert.strictEqual(classOf(`172.${x}.${b}.${c}`), "private")
    assert.strictEqual(classOf(`192.168.${b}.${c}`), "private")
  })

  prop("the loose spellings of an IPv4 address classify like the address", [octet, octet, octet, octet], ([a, b, c, d]) => {
    const value = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0
    const dotted = classOf(`${a}.${b}.${c}.${d}`)
    assert.strictEqual(classOf(String(value)), dotted)
    assert.strictEqual(classOf(`0x${value.toString(16)}`), dotted)
    assert.strictEqual(classOf(`${a}.${(b << 16) | (c << 8) | d}`), dotted)
  })

  prop("IPv6 text round-trips through parse and format", [fc.ipV6()], ([text]) => {
    const ip = Address.parseIpAddress(text)
    assert.isTrue(Option.isSome(ip), text)
    const again = Address.parseIpAddress(Address.formatIpAddress(Option.getOrThrow(ip)))
    assert.deepStrictEqual(Option.getOrThrow(again).bytes, Option.getOrThrow(ip).bytes)
  })

  prop("random strings never throw", [fc.string({ maxLength: 60 })], ([s]) => {
    assert.isString(classOf(s))
    assert.isTrue(Result.isResult(Address.checkResolvedAddresses("h", [s])))
  })
})
