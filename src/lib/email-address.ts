/** Email addresses: the syntax check every form and endpoint that takes one uses. */

const EMAIL_RE = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/;

/** local@domain.tld, at most 254 characters, without whitespace or any of <>(),;:"[]\ and a second @. */
export function validEmail(email: string): boolean {
  return email.length <= 254 && EMAIL_RE.test(email);
}
