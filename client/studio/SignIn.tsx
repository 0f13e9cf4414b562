import { useState, type FormEvent, type ReactNode } from 'react';
import { HttpError } from '../lib/api';
import { accessToken, errorText, studio } from './api';

/** Asks for a researcher/analyst token, checks it against the API and keeps it in localStorage. */
export function SignIn({ children }: { children: ReactNode }) {
  const [signedIn, setSignedIn] = useState(accessToken.get() !== null);
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (signedIn) return <>{children}</>;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    accessToken.set(token.trim());
    try {
      await studio.list();
      setSignedIn(true);
    } catch (err) {
      accessToken.clear();
      setError(err instanceof HttpError && err.status === 401 ? 'That token is not valid (or was revoked).' : errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card narrow">
      <h2>Sign in</h2>
      <p className="muted">
        Paste a researcher or analyst access token (<code>npm run admin -- token create --role researcher</code>). It is kept in
        this browser only.
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
      onClick={() => {
        accessToken.clear();
        location.assign('/studio');
      }}
    >
      Sign out
    </button>
  );
}

/** Page frame of the studio and report screens. */
export function StudioPage({ title, children }: { title: ReactNode; children: ReactNode }) {
  return (
    <div className="page studio">
      <header className="top">
        <div className="top-row">
          <h1>
            <a href="/studio">Earmark studio</a> {title && <span className="crumb">/ {title}</span>}
          </h1>
          {accessToken.get() && <SignOut />}
        </div>
      </header>
      <main className="wide">{children}</main>
    </div>
  );
}
