import { useEffect, useState, type FormEvent } from 'react';
import type { StudioStudy, StudyTemplate } from '../../contract/studio';
import { definitionProblems, errorText, studio } from './api';
import { keepDraft, loadDraft, NEW_STUDY } from './drafts';
import { Problems } from './Problems';
import { SignIn, StudioPage } from './SignIn';
import { StudyPage } from './StudyPage';
import './studio.css';

function StudyList() {
  const [studies, setStudies] = useState<StudioStudy[] | null>(null);
  const [roots, setRoots] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    studio.list().then((r) => (setStudies(r.studies), setRoots(r.roots)), (e) => setError(errorText(e)));
  }, []);
  if (error) return <p className="notice">{error}</p>;
  if (!studies) return <p className="muted">Loading…</p>;
  return (
    <>
    <table className="data studies" data-testid="study-list">
      <thead>
        <tr><th>study</th><th>status</th><th className="n">items</th><th className="n">listeners</th><th className="n">completed</th><th className="n">votes</th></tr>
      </thead>
      <tbody>
        {studies.length === 0 && (
          <tr><td colSpan={6} className="muted">No studies yet.</td></tr>
        )}
        {studies.map((s) => (
          <tr key={s.id}>
            <td>
              <a href={`/studio/${s.id}`}>{s.id}</a>
              <div className="muted small">{s.title}</div>
            </td>
            <td><span className={`status-pill ${s.status}`}>{s.built ? s.status : 'not built'}</span></td>
            <td className="n">{s.items}</td>
            <td className="n">{s.listeners}</td>
            <td className="n">{s.completed}</td>
            <td className="n">{s.votes}</td>
          </tr>
        ))}
      </tbody>
    </table>
    <div className="muted small" data-testid="corpus-roots">
      Studies read sources and audio only inside these folders (add yours with <code>EARMARK_CORPORA</code> or <code>--corpora</code> when starting the server,
      or upload audio to a study):
      <ul>
        {roots.map((r) => (
          <li key={r}>
            <code>{r}</code>
          </li>
        ))}
      </ul>
    </div>
    </>
  );
}

function CreateStudy() {
  const [templates, setTemplates] = useState<StudyTemplate[]>([]);
  const [draft] = useState(() => loadDraft(NEW_STUDY));
  const [name, setName] = useState(draft?.name ?? '');
  const [source, setSource] = useState('');
  const [yaml, setYaml] = useState(draft?.yaml ?? '');
  useEffect(() => keepDraft(NEW_STUDY, name || yaml ? { name, yaml, base: '' } : null), [name, yaml]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    studio.templates().then((r) => setTemplates(r.templates), () => setTemplates([]));
  }, []);

  const pick = (id: string) => {
    setSource(id);
    const t = templates.find((x) => x.id === id);
    if (t) setYaml(t.yaml);
  };
  const loadFile = async (file: File | undefined) => {
    if (!file) return;
    setSource('');
    setYaml(await file.text());
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await studio.create({ name, yaml });
      keepDraft(NEW_STUDY, null);
      location.assign(`/studio/${name}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={submit} aria-label="new study">
      <div className="row">
        <label>
          Study name
          <input value={name} onChange={(e) => setName(e.target.value.toLowerCase())} pattern="[a-z0-9][a-z0-9-]{0,63}" placeholder="e.g. caps-2026-05" required />
        </label>
        <label>
          Start from a template
          <select value={source} onChange={(e) => pick(e.target.value)}>
            <option value="">— none (paste or upload) —</option>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          or upload a study.yaml
          <input type="file" accept=".yaml,.yml,text/yaml" onChange={(e) => void loadFile(e.target.files?.[0])} />
        </label>
      </div>
      <label>
        study.yaml
        <textarea className="yaml" value={yaml} onChange={(e) => setYaml(e.target.value)} rows={14} spellCheck={false} required placeholder="Paste a study definition, or pick a template above." />
      </label>
      {draft && (draft.name || draft.yaml) && (name || yaml) && (
        <p className="muted small" data-testid="draft-restored">
          Your unsaved draft from {new Date(draft.at).toLocaleString()} is back (kept in this browser).{' '}
          <button type="button" className="secondary small-button" onClick={() => (setName(''), setYaml(''), setSource(''))}>
            Discard
          </button>
        </p>
      )}
      {error !== null && <Problems problems={definitionProblems(error)} message={errorText(error)} />}
      <div>
        <button type="submit" className="primary" disabled={busy || !name || !yaml}>
          Create study
        </button>
      </div>
    </form>
  );
}

function Home() {
  return (
    <>
      <section className="card">
        <h2>Studies</h2>
        <StudyList />
      </section>
      <section className="card">
        <h2>New study</h2>
        <CreateStudy />
      </section>
    </>
  );
}

/** /studio and /studio/<study>: the researcher's screens (a lazy chunk; listeners never load it). */
export default function StudioApp({ study }: { study?: string }) {
  return (
    <StudioPage title={study ?? ''}>
      <SignIn>{study ? <StudyPage id={study} /> : <Home />}</SignIn>
    </StudioPage>
  );
}
