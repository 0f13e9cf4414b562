import { useEffect, useState } from 'react';
import { HttpError } from '../lib/api';
import { errorText } from './api';
import { signInEnded } from './SignIn';

/**
 * `load()` now and every `ms` after the previous answer while the component is shown (for `key`,
 * e.g. the study). A failed poll keeps the last data and shows the error until one succeeds; a
 * 401 (token revoked, sign-in expired) stops polling at once and returns to the sign-in form.
 */
export function usePolled<T>(load: () => Promise<T>, ms: number, key: string) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const d = await load();
        if (live) (setData(d), setError(null));
      } catch (err) {
        if (err instanceof HttpError && err.status === 401) {
          live = false;
          signInEnded();
          return;
        }
        if (live) setError(errorText(err));
      }
      if (live) timer = setTimeout(poll, ms);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `load` is a fresh closure each render; what it reads is `key`.
  }, [key, ms]);
  return { data, error, setError };
}
