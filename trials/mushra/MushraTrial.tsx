/**
 * The MUSHRA page (ITU-R BS.1534-3, analysis-spec §5.3): the open reference and N rated stimuli on
 * one Web Audio timeline (the shared multi-stimulus player: all decoded once, switching at the same
 * position to the sample, 5 ms raised-cosine fades on every switch and loop wrap, never a cross-fade;
 * a loop of a chosen region ≥ 500 ms; restart-from-zero as an option). One 0–100 slider per stimulus
 * with the scale's five labelled bands; only the selected (playing, or last played) stimulus's slider
 * moves. Next is enabled once every rated stimulus is heard as the study's listening rule says and
 * scored. Keys: R the reference, 1–9 and 0 the stimuli, Space play/stop, L loop, ↑/↓ (Shift: ×10) the
 * playing stimulus's score, Enter next.
 */
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { TrialProps } from '../../client/listener/trials/types';
import { useMultiPlayer } from '../../client/listener/players/useMultiPlayer';
import { MultiStimulusTransport } from '../../client/listener/trials/MultiStimulusPlayer';
import { useMessages } from '../../client/listener/messages';
import { Markdown } from '../../client/lib/markdown';
import { isTextEntry, touchFirst } from '../../client/lib/input';
import type { ListeningRecord } from '../../client/lib/listening';
import type { StimulusRecord } from '../../client/listener/trials/StimuliTrial';
import type { TrialProblem } from '../../client/listener/trials/types';
import type { MushraAnswer, MushraTrial as MushraSpec } from './contract';
import { useMushraWords } from './words';

/** What a MUSHRA page answers with: a score per rated stimulus and their listening records (screen order). */
export type MushraResponse = ListeningRecord & MushraAnswer & { listening: StimulusRecord[] };

const STIMULUS_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '='];

export function MushraTrial({ spec, env, finish, advance, label, skip }: TrialProps<MushraSpec, MushraResponse>) {
  const m = useMessages();
  const w = useMushraWords();
  const n = spec.stimuli.length;
  const [failure, setFailure] = useState<TrialProblem | null>(null);
  // Index 0 plays the open reference; 1…n the rated stimuli.
  const p = useMultiPlayer(env, [spec.reference, ...spec.stimuli], setFailure);
  const [scores, setScores] = useState<(number | null)[]>(() => spec.stimuli.map(() => null));
  const [looping, setLooping] = useState(false);
  const [drawn, setDrawn] = useState(false);
  const [sending, setSending] = useState(false);
  const root = useRef<HTMLElement>(null);
  useEffect(() => {
    window.scrollTo(0, 0);
    root.current?.focus({ preventScroll: true });
  }, [spec.position]);

  const heard = p.heard.slice(1);
  const heardCount = heard.filter(Boolean).length;
  const ratedCount = scores.filter((s) => s !== null).length;
  const done = p.ready && heardCount === n && ratedCount === n;
  const labelOf = (i: number) => (i === 0 ? w.reference : w.stimulus(i));
  const locked = !p.ready || failure !== null || sending;

  const setScore = useCallback((i: number, value: number) => setScores((all) => all.map((s, j) => (j === i ? Math.max(0, Math.min(100, Math.round(value))) : s))), []);

  const next = () => {
    if (!done || sending) return;
    p.pause();
    // The vote carries the rated stimuli's records; the open reference is heard at will, not counted.
    const listening = p.listening().slice(1);
    const all = p.record();
    setSending(true);
    void finish({
      scores: scores as number[],
      listening,
      playCount: listening.reduce((k, l) => k + l.plays, 0),
      secondsListened: Math.round(listening.reduce((k, l) => k + l.secondsHeard, 0) * 1000) / 1000,
      heardToEnd: listening.every((l) => l.heardToEnd),
      hiddenMs: all.hiddenMs,
      responseMs: all.responseMs,
    }).then(() => advance());
  };

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTextEntry(e.target) || locked) return;
    const k = e.key.toLowerCase();
    const at = STIMULUS_KEYS.indexOf(k);
    if (k === 'r') void p.hear(0);
    else if (at >= 0 && at < n) void p.hear(at + 1);
    else if (k === ' ') void p.toggle();
    else if (k === 'l') setLooping((on) => !on);
    else if ((k === 'arrowup' || k === 'arrowdown') && p.active > 0) setScore(p.active - 1, (scores[p.active - 1] ?? 50) + (k === 'arrowup' ? 1 : -1) * (e.shiftKey ? 10 : 1));
    else if (k === 'enter') next();
    else return;
    e.preventDefault();
  };

  // Where the study keeps the open reference (trial.referencePosition), the same on every page.
  const referenceAbove = env.trial.kind !== 'mushra' || env.trial.referencePosition === 'above';
  const referenceButton = (
    <button
      type="button"
      className={['stimulus', 'mushra-reference', p.active === 0 && 'selected', p.playing && p.active === 0 && 'playing'].filter(Boolean).join(' ')}
      aria-pressed={p.playing && p.active === 0}
      disabled={locked}
      onClick={() => void p.hear(0)}
      data-reference-position={referenceAbove ? 'above' : 'below'}
    >
      {w.reference}
    </button>
  );
  return (
    <section
      ref={root}
      className="trial mushra-trial"
      tabIndex={-1}
      aria-label={spec.practice ? m.practiceLabel(label ?? m.trial) : (label ?? m.trial)}
      aria-describedby={`question-${spec.position}`}
      data-position={spec.position}
      data-ready={p.ready && drawn ? 'true' : 'false'}
      data-done={done ? 'true' : 'false'}
      onKeyDown={onKeyDown}
    >
      {spec.practice && <p className="badge badge-practice">{m.practice}</p>}
      <div id={`question-${spec.position}`}>
        <Markdown text={env.question} className="prose question" />
      </div>

      {referenceAbove && referenceButton}

      <MultiStimulusTransport p={p} label={labelOf(p.active)} words={w} disabled={locked} onDrawn={() => setDrawn(true)} looping={looping} setLooping={setLooping} />
      <p className="sr-only" aria-live="polite" data-testid="now-playing">
        {p.playing ? w.playing(labelOf(p.active)) : ''}
      </p>

      <div className="mushra-scale" aria-hidden="true">
        {w.bands.map((b) => (
          <span key={b}>{b}</span>
        ))}
      </div>
      <ol className="mushra-stimuli" aria-label={w.stimuli}>
        {spec.stimuli.map((clip, i) => {
          const name = w.stimulus(i + 1);
          const selected = p.active === i + 1;
          const score = scores[i];
          return (
            <li key={`${clip.id}-${i}`} className={['mushra-stimulus', selected && 'selected'].filter(Boolean).join(' ')} data-heard={heard[i] ? 'true' : 'false'} data-rated={score !== null ? 'true' : 'false'}>
              <button type="button" className={['stimulus', selected && p.playing && 'playing'].filter(Boolean).join(' ')} aria-pressed={selected && p.playing} disabled={locked} onClick={() => void p.hear(i + 1)}>
                <span className="sr-only">{w.play(name)}</span>
                <span aria-hidden="true">{i + 1}</span>
                <span className="stimulus-heard">
                  <span className="sr-only">, </span>
                  {heard[i] ? w.heard : w.notHeard}
                </span>
              </button>
              <input
                type="range"
                min={0}
                max={100}
                step={1}
                value={score ?? 50}
                aria-label={w.score(name)}
                aria-valuetext={score === null ? w.notRated : `${score}, ${w.bands[Math.min(4, Math.floor((100 - score) / 20))]}`}
                title={selected ? undefined : w.scoreOnlyPlaying}
                // BS.1534-3: only the stimulus being heard is scored.
                disabled={locked || !selected}
                onChange={(e) => setScore(i, Number(e.target.value))}
                // Releasing the thumb where it starts (50) is a score too: onChange alone would not see it.
                onPointerUp={(e) => setScore(i, Number(e.currentTarget.value))}
              />
              <output className="mushra-score">{score ?? '–'}</output>
            </li>
          );
        })}
      </ol>
      {!referenceAbove && referenceButton}

      {failure && (
        <div className="notice failure" role="alert">
          <p>{failure.problem === 'load_failed' ? m.loadFailed : m.playFailed} {m.pleaseTryAgain}</p>
          <div className="actions">
            <button type="button" className="primary" onClick={p.tryAgain}>{m.tryAgain}</button>
            {p.reloads > 0 && skip && (
              <button type="button" className="secondary" onClick={() => void skip(failure)}>{m.reportAndSkip}</button>
            )}
          </div>
        </div>
      )}
      {!p.ready && !failure && <p className="muted loading-note">{w.loading}</p>}
      <p className={done ? 'requirement met' : 'requirement'} role="status">
        {done ? w.ready : w.remaining(heardCount, ratedCount, n)}
      </p>
      <div className="trial-footer">
        <button type="button" className="primary" disabled={!done || sending} onClick={next}>
          {w.next}
        </button>
        <p className="muted key-hints">{touchFirst() ? w.touchHints : w.keys}</p>
      </div>
    </section>
  );
}

/** The instructions screen's word on a MUSHRA page's controls: touch, or keys. */
export function MushraHints({ touch }: { touch: boolean }) {
  const w = useMushraWords();
  return <p className="muted">{touch ? w.touchHints : w.keys}</p>;
}
