/**
 * Disposable (throwaway) email domains, from the mailchecker package's
 * regularly updated list, for disallow_disposable_email_addresses.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let domains: Set<string> | null = null;

/** Whether the domain (exactly, as Zulip's is_disposable_domain) is a known disposable one. */
export function isDisposableDomain(domain: string): boolean {
  // Loaded on first use: the list is large.
  domains ??= (require('mailchecker') as { blacklist(): Set<string> }).blacklist();
  return domains.has(domain.toLowerCase());
}
