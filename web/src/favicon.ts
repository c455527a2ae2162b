/**
 * The page's icon, as Zulip's favicon: Parley's mark, with the unread count
 * over it (1K for a thousand and more, as Zulip writes it) and a red dot
 * while direct messages are unread, so a tab in the background shows both.
 */

/** Parley's mark, the plain icon's picture. */
const MARK = "<rect width='32' height='32' rx='8' fill='#4f5bd5'/><path d='M9 10h14v9H15l-4 4v-4H9z' fill='white'/>";

/** A count as Zulip's favicon writes it: up to 999 whole, then thousands (K), millions (M), … */
export function faviconCount(n: number): string {
  if (n <= 0) return '';
  const pow = Math.floor(Math.log10(n) / 3);
  return pow < 5 ? `${Math.floor(n / 1000 ** pow)}${['', 'K', 'M', 'G', 'T'][pow]}` : '\u221e';
}

/** The icon's SVG for `unread` messages, `dms` of them direct messages. */
export function faviconSvg(unread: number, dms: number): string {
  const count = faviconCount(unread);
  // (The badge widens with the count; three characters or four take the icon's width, in smaller figures.)
  const long = count.length >= 3;
  const width = long ? 32 : 8 + 8 * count.length;
  const badge = count
    ? `<rect x='${32 - width}' y='14' width='${width}' height='18' rx='6' fill='#1f2430'/>` +
      `<text x='${32 - width / 2}' y='${long ? 27.5 : 28}' text-anchor='middle' font-family='sans-serif' font-weight='700' font-size='${long ? 12 : 15}' fill='white'>${count}</text>`
    : '';
  const dot = dms > 0 ? "<circle cx='26' cy='6' r='6' fill='#e5484d' stroke='white' stroke-width='1.5'/>" : '';
  return `<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'>${MARK}${badge}${dot}</svg>`;
}

let shown = '';
/** Shows `unread` (of which `dms` direct messages) in the page's icon; the plain mark with none. */
export function setFavicon(unread: number, dms: number): void {
  // (With none, faviconSvg draws the mark alone.)
  const href = `data:image/svg+xml,${encodeURIComponent(faviconSvg(unread, dms))}`;
  if (href === shown) return;
  shown = href;
  const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (link) link.href = href;
}
