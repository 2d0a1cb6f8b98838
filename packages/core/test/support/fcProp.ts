// fast-check bridge: @effect/vitest 4 `it.prop` / `it.effect.prop` accept only Schema or effect/Arbitrary inputs, and
// effect 4 no longer re-exports FastCheck. Property tests of every package register through these two helpers.
import { it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as fc from "fast-check"

type Values<A extends ReadonlyArray<fc.Arbitrary<unknown>>> = { -readonly [K in keyof A]: A[K] extends fc.Arbitrary<infer T> ? T : never }
export interface PropOptions {
  readonly fastCheck?: fc.Parameters<any> // same option name as v3 it.prop(..., { fastCheck: { numRuns } })
  readonly timeout?: number
}

/** v3: it.prop(name, [arbA, arbB], ([a, b]) => { ... }, { fastCheck: { numRuns } }) */
export const prop = <const A extends ReadonlyArray<fc.Arbitrary<unknown>>>(
  name: string,
  arbitraries: A,
  body: (values: Values<A>) => boolean | void,
  options?: PropOptions
): void =>
  it(name, () => {
    fc.assert(
      fc.property(...(arbitraries as unknown as [fc.Arbitrary<unknown>]), (...values) => body(values as Values<A>)),
      options?.fastCheck
    )
  }, options?.timeout)

/** v3: it.effect.prop(name, [arbs], ([a]) => Effect.gen(...), { fastCheck }) -- each case runs with the test's services (TestClock, TestConsole) */
export const effectProp = <const A extends ReadonlyArray<fc.Arbitrary<unknown>>, X, E>(
  name: string,
  arbitraries: A,
  body: (values: Values<A>) => Effect.Effect<X, E, Scope.Scope>,
  options?: PropOptions
): void =>
  it.effect(name, () =>
    Effect.flatMap(Effect.context<never>(), (context) =>
      // the whole running context: TestClock & TestConsole included
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            ...(arbitraries as unknown as [fc.Arbitrary<unknown>]),
            (...values) => Effect.runPromiseWith(context)(Effect.scoped(body(values as Values<A>))).then(() => undefined)
          ),
          options?.fastCheck
        )
      )), options?.timeout)
