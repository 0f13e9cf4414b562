/**
 * The A/B preference trial (analysis-spec §5.1): two renditions of one utterance on one Web Audio
 * timeline. "A" and "B" play or switch (the position is kept, with 5 ms fades and no overlap: the
 * shared multi-stimulus player), Space plays and pauses, the waveform shows the version playing.
 * Both versions must be heard as the study's listening rule says before the choice unlocks; then
 * "A is better", "B is better" (and "No preference" between them when the study offers a tie), and
 * Confirm. Keys: A/B or 1/2 switch, ←/→ choose, Enter confirms. Practice trials show feedback.
 */
import { useState } from 'react';
import { clock, AnswerGroup, FailureNotice, TrialFooter, WaveArea } from '../../client/listener/trials/ClipTrialScreen';
import type { TrialProps } from '../../client/listener/trials/types';
import { useTrialAnswer } from '../../client/listener/trials/useTrialAnswer';
import { useMultiPlayer } from '../../client/listener/players/useMultiPlayer';
import { useMessages } from '../../client/listener/messages';
import { Markdown } from '../../client/lib/markdown';
import type { ListeningRecord } from '../../client/lib/listening';
import { Waveform } from '../../client/listener/Waveform';
import type { AbAnswer, AbTrial as AbSpec, StimulusListening } from './contract';
import { useAbWords } from './words';

/** What an A/B trial answers with: the preference, the listening totals and one listening entry per stimulus (screen order). */
export type AbResponse = ListeningRecord & AbAnswer & { listening: StimulusListening[] };

type Preference = AbAnswer['preference'];
const SIDES = ['A', 'B'] as const;
/** The stimulus a key switches to (A/B or 1/2), or undefined. */
const keyStimulus: Record<string, number | undefined> = { a: 0, '1': 0, b: 1, '2': 1 };

export function AbTrial(props: TrialProps<AbSpec, AbResponse>) {
  const m = useMessages();
  const w = useAbWords();
  const { spec, env, label } = props;
  const order: Preference[] = spec.tie ? ['A', 'tie', 'B'] : ['A', 'B'];
  // Answered: no more listening, except to hear a practice pair again beside its feedback.
  const mayListen = () => !t.answeredRef.current || t.feedback !== null;
  const t = useTrialAnswer<Preference, AbAnswer, Omit<AbResponse, 'preference'>>(props, {
    answer: (preference) => ({ preference }),
    listened: () => p.listened(),
    record: () => p.record(),
    stop: () => p.pause(),
    toggle: () => mayListen() && void p.toggle(),
    key: (k) => {
      const i = keyStimulus[k.toLowerCase()];
      if (i === undefined || !p.ready) return null;
      if (mayListen()) void p.hear(i);
      return 'done';
    },
    arrowPick: (k, selected) => {
      if (selected === null) return k === 'ArrowLeft' ? order[0] : order[order.length - 1];
      const at = order.indexOf(selected) + (k === 'ArrowLeft' ? -1 : 1);
      return order[Math.max(0, Math.min(order.length - 1, at))];
    },
  });
  const p = useMultiPlayer(env, spec.stimuli, t.setFailure);
  const [drawn, setDrawn] = useState(false);
  const ready = p.ready && drawn;

  const durations = spec.stimuli.map((s) => s.duration);
  const r = env.listening;
  const requirement = r.mode === 'whole' || r.seconds >= Math.min(...durations) * 0.95 ? w.listenWhole : w.listenSeconds(r.seconds);
  const locked = !p.ready || t.failure !== null || (t.answered && !t.feedback);
  const fb = t.feedback;
  // Practice feedback names the better version: the one chosen if right, else the other (a wrong "no preference" names none).
  const intended: Preference | null = fb && t.selected !== null ? (fb.correct ? t.selected : t.selected === 'A' ? 'B' : t.selected === 'B' ? 'A' : null) : null;
  const active = spec.stimuli[p.active];
  const peaks = p.peaks[p.active];

  return (
    <section
      ref={t.root}
      className="trial ab-trial"
      tabIndex={-1}
      aria-label={spec.practice ? m.practiceLabel(label ?? m.trial) : (label ?? m.trial)}
      aria-describedby={`question-${spec.position}`}
      data-position={spec.position}
      data-ready={ready ? 'true' : 'false'}
      data-unlocked={p.unlocked ? 'true' : 'false'}
      data-failed={t.failure ? 'true' : 'false'}
      onKeyDown={t.onKeyDown}
    >
      {spec.practice && <p className="badge badge-practice">{m.practice}</p>}
      <div id={`question-${spec.position}`}>
        <Markdown text={env.question} className="prose question" />
      </div>

      <div className="ab-stimuli" role="group" aria-label={w.versions}>
        {SIDES.map((side, i) => (
          <button
            key={side}
            type="button"
            className={['stimulus', p.active === i && 'selected', p.playing && p.active === i && 'playing'].filter(Boolean).join(' ')}
            aria-pressed={p.playing && p.active === i}
            data-heard={p.heard[i] ? 'true' : 'false'}
            disabled={locked}
            onClick={() => void p.hear(i)}
          >
            <span className="sr-only">{w.listenTo} </span>
            <span className="stimulus-letter">{side}</span>
            <span className="stimulus-heard">
              <span className="sr-only">, </span>
              {p.heard[i] ? (
                <>
                  <span aria-hidden="true">✓ </span>
                  {w.heard}
                </>
              ) : (
                w.notHeard
              )}
            </span>
          </button>
        ))}
      </div>

      {/* A switch by key moves no focus: say which version now plays. */}
      <p className="sr-only" aria-live="polite" data-testid="now-playing">
        {p.playing ? w.playing(SIDES[p.active]) : ''}
      </p>

      <div className="player">
        <button
          type="button"
          className="play"
          onClick={() => void p.toggle()}
          aria-label={p.playing ? m.pauseClip : m.playClip}
          disabled={locked}
        >
          <span aria-hidden="true" className={p.playing ? 'icon-pause' : 'icon-play'} />
        </button>
        <WaveArea
          wave={
            peaks && (
              <Waveform
                key={p.active}
                peaks={peaks}
                duration={active.duration}
                position={p.position}
                onSeek={(s) => !locked && p.seek(s)}
                onDrawn={() => setDrawn(true)}
              />
            )
          }
          failed={p.peaksFailed}
          retry={p.retryPeaks}
          now={`${SIDES[p.active]} · ${clock(p.position)}`}
          duration={active.duration}
        />
      </div>
      {t.failure ? <FailureNotice t={{ ...t, reloads: p.reloads, tryAgain: p.tryAgain }} /> : !p.ready && <p className="muted loading-note">{w.loading}</p>}

      <p className={p.unlocked ? 'requirement met' : 'requirement'} role="status">
        {p.unlocked ? w.nowChoose : requirement}
      </p>

      <AnswerGroup
        t={{ ...t, unlocked: p.unlocked }}
        className={`ab-choices ab-choices-${order.length}`}
        optionClass="ab-choice"
        label={w.preference}
        intended={intended}
        options={order.map((value) => ({ value, content: <span>{value === 'tie' ? w.tie : w.better(value)}</span> }))}
      />

      <TrialFooter
        t={t}
        texts={{
          confirm: m.confirmChoice,
          touchHints: w.touchHints,
          keyHints: (
            <>
              <kbd>A</kbd>/<kbd>B</kbd> {m.keysOr} <kbd>1</kbd>/<kbd>2</kbd> {w.keysSwitch} · <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}
            </>
          ),
          feedback: (f) => (f.correct ? w.correct(intended as 'A' | 'B') : intended ? w.wrong(intended as 'A' | 'B') : w.wrongTie),
        }}
      />
    </section>
  );
}
