import { useEffect, useState, useSyncExternalStore, type FormEvent, type ReactNode } from 'react';
import { HttpError } from '../lib/api';
import { errorText, staffSession } from './api';

/** Whether this browser holds a valid sign-in cookie: null until the server has said. */
let signedIn: boolean | null = null;
/** Whether the sign-in ended under a signed-in page (signInEnded), to say so on the form. */
let ended = false;
const watchers = new Set<() => void>();
const setSignedIn = (value: boolean) => {
  signedIn = value;
  for (const notify of watchers) notify();
};
/**
 * The server answered 401 to a signed-in page: the token was revoked or the sign-in expired. The
 * page goes back to the sign-in form (which unmounts every polling view), so a revoked token is
 * not sent again every few seconds.
 */
export function signInEnded(): void {
  if (signedIn !== false) {
    ended = true;
    setSignedIn(false);
  }
}
function useSignedIn(): boolean | null {
  return useSyncExternalStore(
    (notify) => {
      watchers.add(notify);
      return () => watchers.delete(notify);
    },
    () => signedIn,
  );
}

/** Asks for a researcher/analyst token once; the server keeps it in an HttpOnly cookie, never this page. */
export function SignIn({ children }: { children: ReactNode }) {
  const current = useSignedIn();
  const [token, setToken] = useState('');
  const [failure, setError] = useState<string | null>(null);
  const error = failure ?? (current === false && ended ? 'Your sign-in has ended (the token was revoked or the sign-in expired). Sign in again.' : null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (signedIn === null) staffSession.check().then((s) => setSignedIn(s !== null), (err) => setError(errorText(err)));
  }, []);

  if (current) return <>{children}</>;
  if (current === null && !error) return <p className="muted">Checking sign-in…</p>;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await staffSession.signIn(token.trim());
      setToken('');
      setSignedIn(true);
    } catch (err) {
      setError(err instanceof HttpError && err.status === 401 ? 'That token is not valid (or was revoked).' : errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card narrow">
      <h2>Sign in</h2>
      <p className="muted">
        Paste a researcher or analyst access token (<code>npm run admin -- token create --role researcher</code>). The server
        keeps it in a cookie this page cannot read; signing out removes it.
      </p>
      <form onSubmit={submit} className="stack">
        <label>
          Access token
          <input type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
        </label>
        {error && <p className="notice" role="alert">{error}</p>}
        <button type="submit" className="primary" disabled={busy || !token.trim()}>
          Sign in
        </button>
      </form>
    </section>
  );
}

export function SignOut() {
  return (
    <button
      type="button"
      className="link"
      onClick={async () => {
        await staffSession.signOut();
        location.assign('/studio');
      }}
    >
      Sign out
    </button>
  );
}

/** Page frame of the studio and report screens. */
export function StudioPage({ title, children }: { title: ReactNode; children: ReactNode }) {
  const current = useSignedIn();
  return (
    <div className="page studio">
      <header className="top">
        <div className="top-row">
          <h1>
            <a href="/studio">Earmark studio</a> {title && <span className="crumb">/ {title}</span>}
          </h1>
          {current && <SignOut />}
        </div>
      </header>
      <main className="wide">{children}</main>
    </div>
  );
}
