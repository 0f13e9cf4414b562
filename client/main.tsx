import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { ListenerApp } from './listener/ListenerApp';
import './styles.css';

/**
 * Routes by path. The listener flow is in the main bundle; researcher and analyst screens must
 * be added here as `React.lazy(() => import(...))` chunks so listeners never download them.
 */
const routes: Array<{ path: RegExp; render(match: RegExpExecArray): ReactNode }> = [
  { path: /^\/s\/([a-z0-9][a-z0-9-]{0,63})\/?$/, render: (m) => <ListenerApp study={m[1]} /> },
];

function NoRoute() {
  return (
    <div className="page">
      <header className="top">
        <h1>Earmark</h1>
      </header>
      <main>
        <section className="card center">
          <h2>Listening studies</h2>
          <p>To take part, open the study link you were given.</p>
        </section>
      </main>
    </div>
  );
}

function App() {
  for (const r of routes) {
    const m = r.path.exec(location.pathname);
    if (m) return r.render(m);
  }
  return <NoRoute />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
