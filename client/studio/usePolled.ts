import { useEffect, useState } from 'react';
import { errorText } from './api';

/**
 * `load()` now and every `ms` after the previous answer while the component is shown (for `key`,
 * e.g. the study). A failed poll keeps the last data and shows the error until one succeeds.
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
