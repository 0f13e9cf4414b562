import { useCallback, useEffect, useState } from 'react';
import type { BuildReport, StudyDetail, StudyFileKind } from '../../contract/studio';
import { Dashboard } from '../reports/Dashboard';
import { HttpError } from '../lib/api';
import { definitionProblems, errorText, studio } from './api';
import { keepDraft, loadDraft, type Draft } from './drafts';
import { Participants } from './Participants';
import { PlanBox } from './PlanBox';
import { Preview } from './Preview';
import { Problems } from './Problems';
import { SettingsForm } from './SettingsForm';

function CopyField({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="copy-field">
      <span className="copy-label">{label}</span>
      <code data-testid={testId}>{value}</code>
      <button
        type="button"
        className="secondary small-button"
        onClick={() => void navigator.clipboard?.writeText(value).then(() => (setCopied(true), setTimeout(() => setCopied(false), 1500)))}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

function BuildSummary({ report }: { report: BuildReport }) {
  const s = report.sampler;
  const range = (from: number | null, to: number | null) => (from === null || to === null ? 'unscored' : `${from.toFixed(2)}–${to.toFixed(2)}`);
  return (
    <div className="build-summary" data-testid="build-summary">
      <p>
        <strong>{report.action === 'validated' ? 'Valid' : `Build: ${report.action}`}</strong> — {report.items.pair + report.items.rating} items, {report.items.attention} attention
        checks, {report.items.practice} practice trials{report.status ? ` (status ${report.status})` : ''}.
        {s && s.identical > 0 && ` ${s.identical} candidate pairs were left out because both captions read the same.`}
      </p>
      {s && (
        <div className="grid2">
          <table className="data">
            <thead>
              <tr><th>system</th><th className="n">items</th></tr>
            </thead>
            <tbody>
              {Object.entries(s.perSystem).map(([system, n]) => (
                <tr key={system}><td>{system}</td><td className="n">{n}</td></tr>
              ))}
            </tbody>
          </table>
          <table className="data">
            <thead>
              <tr><th>judge |Δ| bucket</th><th className="n">available</th><th className="n">target</th><th className="n">chosen</th></tr>
            </thead>
            <tbody>
              {s.buckets.map((b, i) => (
                <tr key={i}><td>{range(b.from, b.to)}</td><td className="n">{b.available}</td><td className="n">{b.target}</td><td className="n">{b.chosen}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {report.notes.length > 0 && (
        <ul className="notes" data-testid="build-notes">
          {report.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      {report.audio && <AudioSummary audio={report.audio} />}
      {report.sources.length > 0 && (
        <details>
          <summary>{report.sources.length} source imports</summary>
          <pre className="imports">{report.sources.map((x) => `${x.kind}: ${x.summary}`).join('\n')}</pre>
        </details>
      )}
    </div>
  );
}

/** A folder name the server takes: letters, digits, . _ - */
const folderName = (name: string) => name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 64);

const hasUploads = (d: StudyDetail) => d.files.captions.length + d.files.judges.length + d.files.plans.length + d.files.audio.length > 0;

/** A file's bytes as base64, in chunks (a spread of a whole clip would overflow the call stack). */
async function base64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The copies listeners hear: the level with its unit, and every clip the peak ceiling held below it, by name. */
function AudioSummary({ audio }: { audio: NonNullable<BuildReport['audio']> }) {
  return (
    <div data-testid="audio-summary">
      <p>
        Audio: {audio.clips} clips served as 16-bit WAV at {audio.level}
        {audio.dither ? ', TPDF-dithered where re-quantised' : ''}; {audio.made} new {audio.made === 1 ? 'copy' : 'copies'} written.
        {audio.peakLimited.length > 0 && ` ${audio.peakLimited.length} peak-limited (kept under −1 dBFS peak, so quieter than the target):`}
      </p>
      {audio.peakLimited.length > 0 && (
        <table className="data">
          <thead>
            <tr><th>peak-limited clip</th><th className="n">level ({audio.unit})</th><th className="n">gain (dB)</th></tr>
          </thead>
          <tbody>
            {audio.peakLimited.map((c) => (
              <tr key={c.clip}><td>{c.clip}</td><td className="n">{c.level ?? '–'}</td><td className="n">{c.gainDb}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Files({ detail, onChange }: { detail: StudyDetail; onChange(d: StudyDetail, keepEdits?: boolean): void }) {
  const [audioRoot, setAudioRoot] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [refused, setRefused] = useState<string[]>([]);
  // Each file on its own: one that cannot be read or is refused does not stop the others.
  const [folder, setFolder] = useState('');
  const upload = async (kind: StudyFileKind, files: FileList | null) => {
    if (!files?.length) return;
    setBusy(true);
    setError(null);
    const problems: string[] = [];
    for (const file of Array.from(files)) {
      let content: string;
      try {
        content = await file.text();
      } catch (err) {
        problems.push(`${file.name} could not be read: ${errorText(err)}`);
        continue;
      }
      try {
        await studio.upload(detail.id, kind, file.name, content);
      } catch (err) {
        if (!(err instanceof HttpError && err.body?.error === 'file_exists')) {
          problems.push(errorText(err));
          continue;
        }
        if (!window.confirm(`${kind}/${file.name} is already uploaded. Replace it? (Undo brings the old one back.)`)) continue;
        await studio.upload(detail.id, kind, file.name, content, true).catch((e: unknown) => problems.push(errorText(e)));
      }
    }
    setRefused(problems);
    try {
      // Uploads leave study.yaml as it is, so edits in progress stay.
      onChange(await studio.get(detail.id), true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  /** A folder (its files with their paths) or a zip, decoded and checked by the server; refused files are listed. */
  const uploadAudio = async (files: FileList | null, zip: boolean) => {
    if (!files?.length) return;
    const chosen = Array.from(files);
    const name = folder || folderName(zip ? chosen[0].name.replace(/\.zip$/i, '') : chosen[0].webkitRelativePath.split('/')[0] || 'audio');
    setBusy(true);
    setError(null);
    setRefused([]);
    try {
      const body = zip
        ? { folder: name, zip: await base64(chosen[0]) }
        : { folder: name, files: await Promise.all(chosen.map(async (f) => ({ path: f.webkitRelativePath || f.name, content: await base64(f) }))) };
      try {
        await studio.uploadAudio(detail.id, body);
      } catch (err) {
        if (!(err instanceof HttpError && err.body?.error === 'folder_exists')) throw err;
        if (!window.confirm(`audio/${name} is already uploaded. Replace it?`)) return;
        await studio.uploadAudio(detail.id, { ...body, replace: true });
      }
      onChange(await studio.get(detail.id), true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const useUploads = async () => {
    setBusy(true);
    setError(null);
    try {
      onChange(await studio.useUploads(detail.id, audioRoot));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="stack">
      <div className="grid2">
        <label>
          Caption files (MetaSet format, one per system: <code>&lt;system&gt;.json</code>)
          <input type="file" multiple accept=".json" aria-label="caption files" disabled={busy} onChange={(e) => void upload('captions', e.target.files)} />
          <span className="muted small" data-testid="caption-files">{detail.files.captions.join(', ') || 'none yet'}</span>
        </label>
        <label>
          Judge files (<code>&lt;system&gt;__&lt;judge&gt;__&lt;run&gt;.json</code> or CSV)
          <input type="file" multiple accept=".json,.csv" aria-label="judge files" disabled={busy} onChange={(e) => void upload('judges', e.target.files)} />
          <span className="muted small" data-testid="judge-files">{detail.files.judges.join(', ') || 'none yet'}</span>
        </label>
        <label>
          VoxReason plans (JSON Lines, <code>.jsonl</code>)
          <input type="file" multiple accept=".jsonl" aria-label="plan files" disabled={busy} onChange={(e) => void upload('plans', e.target.files)} />
          <span className="muted small" data-testid="plan-files">{detail.files.plans.join(', ') || 'none yet'}</span>
        </label>
      </div>
      <fieldset>
        <legend>Audio (WAV or FLAC; a RAVDESS or VCTK folder is recognised by its layout)</legend>
        <div className="row">
          <label>
            Folder name
            <input value={folder} onChange={(e) => setFolder(folderName(e.target.value))} placeholder="from the folder chosen" aria-label="audio folder name" />
          </label>
          <label>
            A folder
            <input type="file" multiple {...{ webkitdirectory: '' }} aria-label="audio folder" disabled={busy} onChange={(e) => void uploadAudio(e.target.files, false)} />
          </label>
          <label>
            Or a zip of it
            <input type="file" accept=".zip" aria-label="audio zip" disabled={busy} onChange={(e) => void uploadAudio(e.target.files, true)} />
          </label>
        </div>
        <span className="muted small" data-testid="audio-folders">
          {detail.files.audio.map((a) => `audio/${a.name}: ${a.clips} clips${a.corpus ? ` (${a.corpus.toUpperCase()})` : ''}`).join(', ') || 'none yet'}
        </span>
      </fieldset>
      <div className="row">
        <label className="grow">
          Audio root on the server for caption files (empty: the uploaded audio folder)
          <input value={audioRoot} onChange={(e) => setAudioRoot(e.target.value)} placeholder="/data/corpora/metaset" aria-label="audio root" />
        </label>
        <button type="button" className="secondary" disabled={busy || (!hasUploads(detail) && !audioRoot)} onClick={() => void useUploads()}>
          Use uploaded files as sources
        </button>
      </div>
      {refused.length > 0 && (
        <div className="notice problems" data-testid="upload-refused">
          Not uploaded:
          <ul>
            {refused.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      )}
      {error !== null && <Problems problems={definitionProblems(error)} message={errorText(error)} />}
    </div>
  );
}

export function StudyPage({ id }: { id: string }) {
  const [detail, setDetail] = useState<StudyDetail | null>(null);
  const [yaml, setYaml] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [report, setReport] = useState<BuildReport | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [cloneName, setCloneName] = useState(`${id}-v2`);

  const [restored, setRestored] = useState<Draft | null>(null);

  /** A fresh detail from the server; its definition replaces the text unless `keepEdits`. */
  const show = useCallback((d: StudyDetail, keepEdits = false) => {
    setDetail(d);
    if (keepEdits) return;
    setYaml(d.yaml);
    setRestored(null);
  }, []);
  useEffect(() => {
    studio.get(id).then((d) => {
      setDetail(d);
      const draft = loadDraft(id);
      if (d.editable && draft && draft.yaml !== d.yaml) (setYaml(draft.yaml), setRestored(draft));
      else setYaml(d.yaml);
    }, setError);
  }, [id]);
  // Unsaved edits live in this browser until saved or discarded, so a reload keeps them.
  useEffect(() => {
    if (!detail?.editable) return;
    keepDraft(id, yaml !== detail.yaml ? { yaml, base: restored?.base ?? detail.yaml } : null);
  }, [id, yaml, detail, restored]);

  // Why an edit after the first vote changes the analysis plan: recorded with it (analysis.planChanges: record).
  const [planReason, setPlanReason] = useState('');
  const run = async (label: string, work: () => Promise<void>) => {
    setBusy(label);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  const saveIfChanged = async () => {
    if (detail && yaml !== detail.yaml) show(await studio.save(id, yaml, planReason.trim() || undefined));
  };
  const validate = () => run('validate', async () => (await saveIfChanged(), setReport(await studio.validate(id))));
  const build = () => run('build', async () => (await saveIfChanged(), setReport(await studio.build(id)), show(await studio.get(id))));
  const save = () => run('save', saveIfChanged);
  const act = (action: 'open' | 'pause' | 'close') => run(action, async () => show(await studio.act(id, action), true));
  const undo = () => run('undo', async () => show(await studio.undo(id)));
  const clone = () => run('clone', async () => (await studio.clone(id, cloneName), location.assign(`/studio/${cloneName}`)));

  if (!detail) return error ? <p className="notice">{errorText(error)}</p> : <p className="muted">Loading…</p>;
  const locked = detail.votes > 0;
  return (
    <>
      <section className="card">
        <div className="section-head">
          <h2>{detail.title}</h2>
          <span className={`status-pill ${detail.status}`} data-testid="study-status">
            {detail.built ? detail.status : 'not built'}
          </span>
          <div className="head-actions">
            {detail.built && detail.status !== 'open' && detail.status !== 'closed' && (
              <button type="button" className="primary" disabled={busy !== null} onClick={() => void act('open')}>
                Open
              </button>
            )}
            {detail.status === 'open' && (
              <button type="button" className="secondary" disabled={busy !== null} onClick={() => void act('pause')}>
                Pause
              </button>
            )}
            {detail.built && detail.status !== 'closed' && (
              <button type="button" className="secondary danger" disabled={busy !== null} onClick={() => window.confirm('Close this study for good? Listeners can no longer vote.') && void act('close')}>
                Close
              </button>
            )}
          </div>
        </div>
        <p className="muted">
          {detail.items} items, {detail.itemsByKind.attention} attention checks, {detail.itemsByKind.practice} practice trials · {detail.listeners} listeners ·{' '}
          {detail.completed} completed · {detail.votes} votes
        </p>
        <div className="links">
          <CopyField label="Listener link" value={detail.links.plain} testId="link-plain" />
          <CopyField label="Prolific" value={detail.links.prolific} testId="link-prolific" />
          <CopyField label="MTurk" value={detail.links.mturk} testId="link-mturk" />
          <p className="muted small">
            Recorded link parameters: {detail.links.recorded.join(', ') || 'none'}. Prolific fills the {'{{%…%}}'} placeholders; MTurk appends workerId,
            assignmentId and hitId itself (list them under <code>linkParameters</code> to record them).
          </p>
        </div>
        <p className="muted small" data-testid="analysis-plan">
          {detail.plan
            ? <>Analysis plan <code>{detail.plan.hash.slice(0, 19)}…</code> frozen {new Date(detail.plan.frozenAt).toLocaleString()}
                {detail.plan.changes.length > 0 ? `; ${detail.plan.changes.length} recorded change${detail.plan.changes.length === 1 ? '' : 's'}` : '; unchanged'} (written to study.json and checked by the report).</>
            : 'The analysis plan (exclusion rules, thresholds, buckets, bootstrap) is frozen when the study opens.'}
        </p>
      </section>

      {detail.status !== 'open' && detail.status !== 'closed' && <PlanBox detail={detail} />}

      {detail.built && <Dashboard study={id} />}

      {detail.built && <Participants study={id} />}

      {detail.built && (
        <section className="card">
          <h2>Preview</h2>
          <p className="muted">Each trial exactly as listeners see it (the first caption is the item's caption a here; listeners get a random order).</p>
          <Preview study={id} />
        </section>
      )}

      <section className="card">
        <div className="section-head">
          <h2>Definition</h2>
          <div className="head-actions">
            {detail.editable && detail.undo && (
              <button type="button" className="secondary" disabled={busy !== null} onClick={() => void undo()} title={`changed ${new Date(detail.undo.at).toLocaleString()}`}>
                Undo {detail.undo.description}
              </button>
            )}
            <button type="button" className="secondary" disabled={!detail.editable || busy !== null || yaml === detail.yaml} onClick={() => void save()}>
              Save
            </button>
            <button type="button" className="secondary" disabled={!detail.editable || busy !== null} onClick={() => void validate()}>
              {busy === 'validate' ? 'Validating…' : 'Validate'}
            </button>
            <button type="button" className="primary" disabled={!detail.editable || busy !== null} onClick={() => void build()}>
              {busy === 'build' ? 'Building…' : 'Build'}
            </button>
          </div>
        </div>
        {!detail.editable && <p className="callout">This study was built from a folder outside the data directory; clone it to edit a copy.</p>}
        {restored && yaml !== detail.yaml && (
          <p className="callout" data-testid="draft-restored">
            Your unsaved edits from {new Date(restored.at).toLocaleString()} are back (kept in this browser until you save).
            {restored.base !== detail.yaml && ' The saved definition has changed since they were made: compare before saving.'}{' '}
            <button type="button" className="secondary small-button" onClick={() => (setYaml(detail.yaml), setRestored(null))}>
              Discard them
            </button>
          </p>
        )}
        {locked && detail.editable && (
          <>
            <p className="callout">Listeners have voted: wording edits are applied at once, but changes to items or captions are refused — clone the study for those. A change to the analysis plan is refused, or, with <code>analysis.planChanges: record</code>, recorded with the reason below.</p>
            <label className="row">
              Reason for changing the analysis plan
              <input value={planReason} onChange={(e) => setPlanReason(e.target.value)} aria-label="reason for changing the analysis plan" />
            </label>
          </>
        )}
        {error !== null && <Problems problems={definitionProblems(error)} message={errorText(error)} />}
        {report && <BuildSummary report={report} />}
        <div className="editor">
          <SettingsForm yaml={yaml} readOnly={!detail.editable} onChange={setYaml} />
          <textarea className="yaml" aria-label="study.yaml" value={yaml} readOnly={!detail.editable} onChange={(e) => setYaml(e.target.value)} rows={30} spellCheck={false} />
        </div>
        <div className="row">
          <label>
            Clone as
            <input value={cloneName} onChange={(e) => setCloneName(e.target.value.toLowerCase())} aria-label="clone name" />
          </label>
          <button type="button" className="secondary" disabled={busy !== null || !cloneName} onClick={() => void clone()}>
            Clone
          </button>
        </div>
      </section>

      {detail.editable && (
        <section className="card">
          <h2>Corpus and source files</h2>
          <Files detail={detail} onChange={show} />
        </section>
      )}
    </>
  );
}
