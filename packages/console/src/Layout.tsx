/**
 * The signed-in frame: skip link, banner (organization, user, sign out), main navigation (a
 * sidebar at 1280 px, a disclosure menu on a phone), and the `<main>` landmark pages render into.
 * A navigation item shows only when the user may read that page (the server still checks).
 */
import type { Permission } from "@image-policy/core"
import { type ReactNode, useEffect, useState } from "react"
import { Link, useLocation } from "wouter"
import { useSession } from "./session.js"

interface NavItem {
  readonly href: string
  readonly label: string
  /** Shown only to those holding it; none: to everyone signed in. */
  readonly permission?: Permission.Permission
}

export const mainNav: ReadonlyArray<NavItem> = [
  { href: "/", label: "Overview", permission: "reports:read" },
  { href: "/policy-groups", label: "Policy groups", permission: "policy:read" },
  { href: "/repositories", label: "Repositories", permission: "repositories:read" },
  { href: "/snooze-requests", label: "Snooze requests", permission: "exceptions:read" },
  { href: "/webhooks", label: "Webhooks", permission: "webhooks:manage" },
  { href: "/audit-log", label: "Audit log", permission: "audit:read" }
]

export const settingsNav: ReadonlyArray<NavItem> = [
  { href: "/settings/api-keys", label: "API keys", permission: "api-keys:manage" },
  { href: "/settings/members", label: "Members and roles", permission: "members:manage" },
  { href: "/settings/organization", label: "Organization", permission: "policy:read" },
  { href: "/account", label: "Your account" }
]

const isActive = (href: string, location: string) => href === "/" ? location === "/" : location === href || location.startsWith(`${href}/`)

function NavLink({ item, location }: { readonly item: NavItem; readonly location: string }) {
  const active = isActive(item.href, location)
  return (
    <li>
      <Link href={item.href} className={active ? "nav__link nav__link--active" : "nav__link"} aria-current={active ? "page" : undefined}>
        {item.label}
      </Link>
    </li>
  )
}

export function Layout({ children }: { readonly children: ReactNode }) {
  const { session, can, signOut } = useSession()
  const [location] = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)
  const [signingOut, setSigningOut] = useState(false)
  // a phone's menu closes once a page is chosen
  useEffect(() => setMenuOpen(false), [location])
  const main = mainNav.filter((i) => i.permission === undefined || can(i.permission))
  const settings = settingsNav.filter((i) => i.permission === undefined || can(i.permission))
  return (
    <div className="app">
      <a className="skip-link" href="#main">Skip to main content</a>
      <header className="topbar">
        <div className="topbar__brand">
          <button
            type="button"
            className="topbar__menu"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen((o) => !o)}
          >
            <span className="topbar__menu-icon" aria-hidden="true" />
            <span className="visually-hidden">Menu</span>
          </button>
          <Link href="/" className="brand">
            <span className="brand__mark" aria-hidden="true">ip</span>
            <span className="brand__name">image-policy</span>
          </Link>
          <span className="topbar__org" title="Organization">{session.organization.name}</span>
        </div>
        <div className="topbar__user">
          <Link href="/account" className="topbar__who" title="Your account">
            <span className="topbar__name">{session.user.name}</span>
            <span className="topbar__email">{session.user.email}</span>
          </Link>
          <button
            type="button"
            className="button button--small"
            disabled={signingOut}
            onClick={() => {
              setSigningOut(true)
              void signOut().finally(() => setSigningOut(false))
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <div className="shell">
        <nav id="main-nav" className={menuOpen ? "nav nav--open" : "nav"} aria-label="Main">
          {/* the banner has no room for it on a phone */}
          <p className="nav__org">{session.organization.name}</p>
          <ul className="nav__list">
            {main.map((item) => <NavLink key={item.href} item={item} location={location} />)}
          </ul>
          {settings.length > 0
            ? (
              <>
                <h2 className="nav__heading" id="nav-settings">Settings</h2>
                <ul className="nav__list" aria-labelledby="nav-settings">
                  {settings.map((item) => <NavLink key={item.href} item={item} location={location} />)}
                </ul>
              </>
            )
            : null}
        </nav>
        <main id="main" className="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  )
}
