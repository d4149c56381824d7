import type { ElementHandle, Frame, Page } from "playwright-core";

/**
 * "Accept" buttons of the common consent-management platforms, tried first in every frame (CSS
 * selectors pierce open shadow roots, which Usercentrics uses).
 */
export const CONSENT_ACCEPT_SELECTORS: readonly string[] = [
  // OneTrust
  "#onetrust-accept-btn-handler",
  // Cookiebot
  "#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll",
  "#CybotCookiebotDialogBodyButtonAccept",
  "#CybotCookiebotDialogBodyLevelButtonAccept",
  // Didomi
  "#didomi-notice-agree-button",
  // Quantcast Choice
  '.qc-cmp2-summary-buttons button[mode="primary"]',
  '#qc-cmp2-ui button[mode="primary"]',
  // Usercentrics
  '[data-testid="uc-accept-all-button"]',
  // TrustArc
  "#truste-consent-button",
  ".truste-button1",
  // Sourcepoint (inside its message iframe)
  'button[title="Accept all"]',
  'button[title="Accept All"]',
  // Complianz, CookieYes, Osano, Klaro, iubenda, Termly, Axeptio, cookieconsent, Borlabs
  ".cmplz-accept",
  ".cky-btn-accept",
  ".osano-cm-accept-all",
  ".cm-btn-accept-all",
  ".iubenda-cs-accept-btn",
  '[data-tid="banner-accept"]',
  "#axeptio_btn_acceptAll",
  ".cc-allow",
  "a.cc-dismiss",
  "#BorlabsCookieBox a._brlbs-btn-accept-all",
];

/**
 * Texts of generic accept buttons (compared trimmed, case-insensitively, whole text), in the
 * languages consent banners are most often written in.
 */
export const CONSENT_ACCEPT_TEXTS: readonly string[] = [
  "accept",
  "accept all",
  "accept all cookies",
  "accept cookies",
  "allow all",
  "allow all cookies",
  "allow cookies",
  "i accept",
  "i agree",
  "agree",
  "agree and continue",
  "agree & continue",
  "got it",
  "alle akzeptieren",
  "alle cookies akzeptieren",
  "akzeptieren",
  "zustimmen",
  "alle zulassen",
  "einverstanden",
  "tout accepter",
  "accepter",
  "accepter et fermer",
  "j'accepte",
  "aceptar",
  "aceptar todo",
  "aceptar todas",
  "accetta",
  "accetta tutto",
  "accetta tutti",
  "accetto",
  "aceitar",
  "aceitar todos",
  "alles accepteren",
  "accepteren",
  "akceptuję",
  "zaakceptuj wszystkie",
  "acceptera alla",
  "godkänn alla",
  "accepter alle",
  "hyväksy kaikki",
];

/**
 * Finds, in the frame, a visible generic accept button: a button-like element whose whole text
 * is one of `texts`, inside an element that looks like a consent banner (an id, class, aria
 * label or role mentioning cookies, consent, GDPR, privacy or a dialog), or whose text itself
 * mentions cookies. Runs in the page; returns the element or null.
 */
const FIND_GENERIC = `(texts) => {
  const wanted = new Set(texts);
  const banner = /cookie|consent|gdpr|privacy|cmp|datenschutz|rgpd|tracking/i;
  const looksLikeBanner = (el) => {
    for (let node = el, depth = 0; node && depth < 12; node = node.parentElement, depth++) {
      const attrs = [node.id, typeof node.className === "string" ? node.className : "", node.getAttribute("aria-label") || "", node.getAttribute("aria-labelledby") || ""].join(" ");
      if (banner.test(attrs)) return true;
      const role = node.getAttribute("role");
      if ((role === "dialog" || role === "alertdialog" || node.tagName === "DIALOG") && banner.test(node.textContent || "")) return true;
    }
    return false;
  };
  const candidates = document.querySelectorAll('button, [role="button"], a, input[type="button"], input[type="submit"]');
  for (const el of candidates) {
    const text = (el.tagName === "INPUT" ? el.value : el.textContent || "").replace(/\\s+/g, " ").trim().toLowerCase();
    if (text.length === 0 || text.length > 40) continue;
    if (!wanted.has(text) && !(/cookie/.test(text) && /accept|allow|agree|akzeptier|accepter/.test(text))) continue;
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || style.visibility === "hidden" || style.display === "none") continue;
    if (looksLikeBanner(el) || /cookie/.test(text)) return el;
  }
  return null;
}`;

async function firstVisible(frame: Frame): Promise<ElementHandle | null> {
  for (const selector of CONSENT_ACCEPT_SELECTORS) {
    const handle = await frame.$(selector).catch(() => null);
    if (handle !== null && (await handle.isVisible().catch(() => false))) return handle;
    await handle?.dispose().catch(() => undefined);
  }
  const generic = await frame.evaluateHandle(`(${FIND_GENERIC})(${JSON.stringify(CONSENT_ACCEPT_TEXTS)})`).catch(() => null);
  const element = generic?.asElement() ?? null;
  if (element === null) await generic?.dispose().catch(() => undefined);
  return element as ElementHandle | null;
}

/**
 * Clicks the accept button of a consent banner, in the page or any of its frames, polling until
 * one shows up or `timeoutMs` passes. Returns what was clicked (`null`: no banner was found,
 * which is not an error: returning visitors and other regions get no banner). Waits, bounded, for
 * the button to go away after the click.
 */
export async function acceptCookies(page: Page, timeoutMs: number): Promise<"clicked" | null> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      const button = await firstVisible(frame);
      if (button === null) continue;
      try {
        await button.click({ timeout: Math.max(100, until - Date.now()) });
        await button.waitForElementState("hidden", { timeout: Math.max(100, Math.min(2000, until - Date.now())) }).catch(() => undefined);
        return "clicked";
      } finally {
        await button.dispose().catch(() => undefined);
      }
    }
    if (Date.now() + 250 >= until) return null;
    await page.waitForTimeout(250);
  }
}
