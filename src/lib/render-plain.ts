/** Minimal HTML for short texts (descriptions) until the Markdown renderer is wired in. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export function renderPlain(text: string): string {
  return text ? `<p>${escapeHtml(text)}</p>` : '';
}
