/**
 * Who holds a lease (a claimed delivery or scan). An owner is a host's stable instance name and
 * the id of one start of it, `instance/start`: a restarted host (same instance, new start) can
 * tell its previous process's leases from its own and release them at once, instead of leaving
 * that work to wait for the leases to expire.
 */

/** An instance name: letters, digits, `.`, `_`, `-` (a hostname fits); never `/`, which ends it in an owner. */
export const instancePattern = /^[A-Za-z0-9._-]{1,64}$/

export const isInstance = (text: string): boolean => instancePattern.test(text)

/** The lease owner of one start of an instance. */
export const owner = (instance: string, start: string): string => `${instance}/${start}`

/** Whose leases `release` frees: one owner's, or those of every earlier start of an instance. */
export type Owners =
  | { readonly owner: string }
  | { readonly instance: string; readonly except: string }

/** Whether `owners` names the holder `held` (the stores' SQL states the same rule). */
export const matches = (owners: Owners, held: string | null): boolean => {
  if (held === null) return false
  if ("owner" in owners) return held === owners.owner
  return held.startsWith(`${owners.instance}/`) && held !== owners.except
}

/** The default instance name of a host: its hostname, with what an instance name cannot hold replaced. */
export const instanceOfHost = (hostname: string): string => hostname.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 64) || "host"
