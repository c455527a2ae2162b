import { useEffect, useState } from 'preact/hooks';
import { api, login, ApiError } from '../api.ts';
import { ErrorLine } from './request.tsx';

/**
 * Where the app opens once logged in: a `next` path of this site (Zulip's
 * login parameter), else the address the visitor came for (its fragment,
 * which the browser keeps over the redirect to the login page: a link to a
 * conversation or to #settings/notifications from an email opens there).
 */
export function afterLogin(): string {
  const next = new URLSearchParams(location.search).get('next');
  // (Only a path of this site: not "//elsewhere" nor "/\\elsewhere".)
  if (next && /^\/(?![/\\])/.test(next)) return next;
  return `/${location.hash}`;
}

export function Login() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [realm, setRealm] = useState<{ name: string } | null>(null);

  useEffect(() => {
    // Anonymous: the organization's name for the heading.
    api('GET', '/server_settings')
      .then((r) => {
        setRealm({ name: r.realm_name ?? '' });
        if (r.realm_name) document.title = `Log in - ${r.realm_name}`;
      })
      .catch(() => {});
  }, []);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email.trim(), password);
      location.assign(afterLogin());
    } catch (err) {
      let msg = err instanceof ApiError ? err.message : 'Cannot reach the server. Check your connection and try again.';
      if (err instanceof ApiError && err.code === 'RATE_LIMIT_HIT') {
        const secs = Math.ceil(err.retryAfter ?? 60);
        msg = `Too many login attempts. Try again in ${secs > 90 ? `${Math.ceil(secs / 60)} minutes` : `${secs} seconds`}.`;
      }
      setError(msg);
      setBusy(false);
    }
  }

  return (
    <main class="login-page">
      <form class="login-card" onSubmit={submit} aria-labelledby="login-title">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true" />
          <span>Parley</span>
        </div>
        <h1 id="login-title">{realm?.name ? `Log in to ${realm.name}` : 'Log in to your organization'}</h1>
        <label for="login-email">Email</label>
        <input id="login-email" name="username" type="email" autocomplete="username" required autofocus value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="login-password">Password</label>
        <input id="login-password" name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <ErrorLine error={error} />
        <button type="submit" class="btn primary wide" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
        {/* The server's own pages (Zulip's address): a link mailed to the account's address. */}
        <a class="login-forgot" href="/accounts/password/reset/">
          Forgot your password?
        </a>
      </form>
    </main>
  );
}
