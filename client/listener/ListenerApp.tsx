import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore, type FormEvent, type ReactNode } from 'react';
import type { AnswersBody, Completion, StudyIntro } from '../../contract/listener';
import { UPCOMING_TRIALS } from '../../contract/constants';
import { api, HttpError } from '../lib/api';
import { touchFirst } from '../lib/input';
import { Markdown } from '../lib/markdown';
import { ClipCache } from '../lib/media';
import type { QueueStatus } from '../lib/voteQueue';
import { catalogues, en, MessagesContext, useMessages } from './messages';
import { Questionnaire } from './Questionnaire';
import { ListenerSession, type SessionSnapshot } from './session';
import { IntroHints, ScreeningTrial, trialKind } from './trials';
import type { ScreeningServer } from './trials/ScreeningTrial';
import type { TrialEnv, TrialProblem } from './trials/types';

type Phase =
  | { name: 'loading' }
  | { name: 'problem'; title: string; text: string; retry?: () => void }
  | { name: 'welcome' }
  | { name: 'instructions' }
  | { name: 'resume' }
  | { name: 'screening'; kinds: Array<'antiphase' | 'huggins'> }
  | { name: 'screened-out' }
  /** The study's questions before the trials (study.yaml questions, when: before). */
  | { name: 'questions' }
  | { name: 'trials' }
  /** A reload after the session ended (finished, or the study stopped): no audio needed. */
  | { name: 'ended' };

function externalIds(intro: StudyIntro): Record<string, string> {
  const params = new URLSearchParams(location.search);
  const out: Record<string, string> = {};
  for (const name of intro.linkParameters) {
    const v = params.get(name);
    if (v) out[name] = v.slice(0, 256);
  }
  return out;
}

function screeningKinds(intro: StudyIntro): Array<'antiphase' | 'huggins'> {
  const k = intro.screening.kind;
  return k === 'none' ? [] : k === 'both' ? ['antiphase', 'huggins'] : [k];
}

function audioOutput(ctx: AudioContext): Record<string, string | number | boolean | null> {
  const sink = (ctx as AudioContext & { sinkId?: unknown }).sinkId;
  return {
    sampleRate: ctx.sampleRate,
    baseLatency: ctx.baseLatency ?? null,
    outputLatency: ctx.outputLatency ?? null,
    maxChannelCount: ctx.destination.maxChannelCount,
    channelCount: ctx.destination.channelCount,
    sinkId: typeof sink === 'string' ? sink || 'default' : null,
    state: ctx.state,
  };
}

/** A text screen of the flow with one primary action, focused so Enter continues. */
function Step(props: { id: string; title: string; action: string; disabled?: boolean; onAction(): void; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
      <div className="actions">
        <button type="button" className="primary" autoFocus disabled={props.disabled} onClick={props.onAction}>
          {props.action}
        </button>
      </div>
    </section>
  );
}

function SaveStatus({ queue }: { queue: QueueStatus }) {
  const m = useMessages();
  const text =
    queue.rejected > 0
      ? m.rejected(queue.rejected)
      : queue.state === 'offline'
      ? m.offline(queue.pending)
      : queue.state === 'retrying'
        ? m.retrying
        : queue.pending > 0
          ? m.saving
          : m.allSaved;
  const tone = queue.rejected > 0 || queue.state === 'offline' || queue.state === 'retrying' ? 'warn' : queue.pending > 0 ? 'busy' : 'ok';
  return (
    <p className={`save-status ${tone}`} role="status" aria-live="polite" data-state={queue.state} data-pending={queue.pending}>
      <span className="dot" aria-hidden="true" />
      {text}
    </p>
  );
}

function Progress({ position, total }: { position: number; total: number }) {
  const m = useMessages();
  const label = m.trialOf(Math.min(position + 1, total), total);
  return (
    <div className="progress">
      <span className="progress-text">{label}</span>
      <progress max={total} value={Math.min(position, total)} aria-label={label} />
    </div>
  );
}

function safeRedirect(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, location.href);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** The code to paste back on the study platform; focused when shown, so screen readers read it first. */
function CompletionCode({ code }: { code: string }) {
  const box = useRef<HTMLDivElement>(null);
  const value = useRef<HTMLParagraphElement>(null);
  const m = useMessages();
  const [copied, setCopied] = useState<'no' | 'yes' | 'select'>('no');
  useEffect(() => box.current?.focus(), []);
  const copy = () => {
    if (navigator.clipboard) {
      void navigator.clipboard.writeText(code).then(() => setCopied('yes'), () => setCopied('select'));
      return;
    }
    // No Clipboard API outside secure contexts (plain HTTP on a lab network): select the code instead.
    const selection = getSelection();
    if (value.current && selection) selection.selectAllChildren(value.current);
    setCopied(document.execCommand('copy') ? 'yes' : 'select');
  };
  return (
    <div className="completion" tabIndex={-1} ref={box} data-testid="completion">
      <p>{m.completionCode}</p>
      <div className="code-row">
        <p className="code" data-testid="completion-code" ref={value}>
          {code}
        </p>
        <button type="button" className="secondary" onClick={copy}>
          {copied === 'yes' ? m.copied : m.copyCode}
        </button>
      </div>
      {copied === 'select' && <p className="muted" role="status">{m.codeSelected}</p>}
    </div>
  );
}

/**
 * Back to the platform: a link and, after finishing, an automatic move after a countdown the
 * listener can stop (WCAG 2.2.1). A stopped study never moves on by itself: its message must be read.
 */
function ReturnLink({ url, auto }: { url: string; auto: boolean }) {
  const m = useMessages();
  const [left, setLeft] = useState(10);
  const [held, setHeld] = useState(!auto);
  useEffect(() => {
    if (held) return;
    if (left <= 0) {
      location.assign(url);
      return;
    }
    const t = setTimeout(() => setLeft(left - 1), 1000);
    return () => clearTimeout(t);
  }, [url, left, held]);
  return (
    <div className="actions center">
      <a className="button primary" href={url}>
        {m.returnToPlatform}
      </a>
      {!auto ? null : held ? (
        <p className="muted">{m.autoReturnStopped}</p>
      ) : (
        <p className="muted">
          {m.autoReturnIn(left)}{' '}
          <button type="button" className="link" onClick={() => setHeld(true)}>
            {m.stayHere}
          </button>
        </p>
      )}
    </div>
  );
}

/** Sends a finished listener's comments, when the study asks for them (study.yaml comments); else null. */
const CommentsContext = createContext<((text: string) => Promise<void>) | null>(null);

/** The optional comments box; sending again replaces what was sent. */
function Comments({ send }: { send: (text: string) => Promise<void> }) {
  const m = useMessages();
  const [text, setText] = useState('');
  const [state, setState] = useState<'editing' | 'sending' | 'sent' | 'failed'>('editing');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setState('sending');
    try {
      await send(text);
      setState('sent');
    } catch {
      setState('failed');
    }
  };
  return (
    <form className="comments" onSubmit={submit}>
      <label htmlFor="comments">{m.commentsLabel}</label>
      <textarea id="comments" rows={3} maxLength={2000} value={text} onChange={(e) => (setText(e.target.value), setState('editing'))} />
      <button type="submit" className="secondary" disabled={text.trim() === '' || state === 'sending'}>
        {m.sendComments}
      </button>
      {state === 'sent' && <p role="status">{m.commentsSent}</p>}
      {state === 'failed' && <p role="alert">{m.commentsFailed}</p>}
    </form>
  );
}

function ThankYou({ completion }: { completion: Completion }) {
  const m = useMessages();
  const sendComments = useContext(CommentsContext);
  const redirect = safeRedirect(completion.redirectUrl);
  return (
    <section className="card center" aria-labelledby="thanks">
      <h2 id="thanks">{m.thanks}</h2>
      <p>{m.allYourAnswersSaved}</p>
      {completion.code && <CompletionCode code={completion.code} />}
      {sendComments && <Comments send={sendComments} />}
      {/* A box to fill in must not be taken away by an automatic redirect (WCAG 2.2.1). */}
      {redirect && <ReturnLink url={redirect} auto={!sendComments} />}
    </section>
  );
}

/** The study was paused or closed while this listener was in it, or they left it: say so, keep nothing hidden, give the way out. */
function Stopped({ stopped, done }: { stopped: NonNullable<SessionSnapshot['stopped']>; done: number }) {
  const m = useMessages();
  const heading = useRef<HTMLHeadingElement>(null);
  const paused = stopped.status === 'paused';
  const left = stopped.status === 'left';
  const redirect = safeRedirect(stopped.way.redirectUrl);
  useEffect(() => {
    if (!stopped.way.code) heading.current?.focus();
  }, [stopped.way.code]);
  return (
    <section className="card center" aria-labelledby="stopped" data-testid="study-stopped" data-status={stopped.status}>
      <h2 id="stopped" tabIndex={-1} ref={heading}>
        {left ? m.leftTitle : paused ? m.pausedTitle : m.closedTitle}
      </h2>
      <p role="alert">{left ? m.leftText : m.stoppedText(paused)}</p>
      {done > 0 && <p>{m.keptAnswers(done)}</p>}
      {stopped.way.code ? (
        <CompletionCode code={stopped.way.code} />
      ) : (
        !redirect && <p>{m.returnNoCode}</p>
      )}
      {redirect && <ReturnLink url={redirect} auto={false} />}
      {paused && <p className="muted">{m.mayReopen}</p>}
    </section>
  );
}

/**
 * "Leave the study": a listener may stop at any time. Asked once more, then the answers given are
 * saved and the server ends the session (its unanswered clips go to other listeners at once).
 */
function LeaveStudy({ session }: { session: ListenerSession }) {
  const m = useMessages();
  const [step, setStep] = useState<'idle' | 'asking' | 'leaving' | 'failed'>('idle');
  const leave = async () => {
    setStep('leaving');
    try {
      await session.leave();
    } catch {
      setStep('failed');
    }
  };
  if (step === 'idle')
    return (
      <p className="leave-study">
        <button type="button" className="link" onClick={() => setStep('asking')}>
          {m.leaveStudy}
        </button>
      </p>
    );
  return (
    <section className="card leave-study" aria-labelledby="leave-ask" data-testid="leave-study">
      <p id="leave-ask">{m.leaveAsk}</p>
      {step === 'failed' && <p role="alert">{m.leaveFailed}</p>}
      <div className="actions">
        <button type="button" className="secondary" disabled={step === 'leaving'} onClick={leave}>
          {step === 'leaving' ? m.leaving : m.leaveConfirm}
        </button>
        {/* Focus on the way back, so a second Enter or tap by mistake does not end the session. */}
        <button type="button" className="primary" autoFocus disabled={step === 'leaving'} onClick={() => setStep('idle')}>
          {m.leaveCancel}
        </button>
      </div>
    </section>
  );
}

/** The study's questions after the trials and how to send them, when the study has any (else null). */
const AfterQuestionsContext = createContext<{ questions: StudyIntro['questions']; send: (answers: AnswersBody['answers']) => Promise<void> } | null>(null);

function AfterQuestions() {
  const after = useContext(AfterQuestionsContext);
  return after && <Questionnaire questions={after.questions} when="after" send={after.send} />;
}

/** How a session ended, or null while it goes on: the questions after the trials first, if due. */
function sessionEnd(snap: SessionSnapshot): ReactNode {
  if (snap.stopped) return <Stopped stopped={snap.stopped} done={snap.done} />;
  if (snap.completion && snap.queue.pending === 0 && !snap.trials.has(snap.position))
    return snap.questionsDue.after ? <AfterQuestions /> : <ThankYou completion={snap.completion} />;
  return null;
}

function Ended({ session }: { session: ListenerSession }) {
  const snap = useSyncExternalStore(session.subscribe, session.snapshot);
  return sessionEnd(snap);
}

/** Clips prefetched after the one on screen: all the upcoming trials a session state carries. */
const PREFETCH_AHEAD = UPCOMING_TRIALS;

function Trials({ session, env, instructions, breakEvery }: { session: ListenerSession; env: TrialEnv; instructions: string; breakEvery: number | null }) {
  const m = useMessages();
  const snap = useSyncExternalStore(session.subscribe, session.snapshot);
  useEffect(() => {
    // Every known upcoming clip (at most five): they are what the listener can answer offline.
    for (const [p, t] of snap.trials) if (p > snap.position && p <= snap.position + PREFETCH_AHEAD) trialKind(t).prefetch(t, env.clips, env.audio);
  }, [snap.trials, snap.position, env.clips]);

  const trial = snap.trials.get(snap.position);
  const finish = useCallback(
    (r: Parameters<typeof session.vote>[1]) => (trial ? session.vote(trial, r) : Promise.resolve(null)),
    [session, trial],
  );
  const advance = useCallback(() => trial && session.advance(trial.position), [session, trial]);
  const skip = useCallback((p: TrialProblem) => (trial ? session.reportProblem(trial, p) : Promise.resolve()), [session, trial]);

  const end = sessionEnd(snap);
  let body;
  if (end) body = end;
  else if (!trial)
    body = (
      <section className="card center waiting" aria-busy="true">
        <div className="spinner" aria-hidden="true" />
        <p>{snap.queue.pending > 0 ? m.savingBeforeNext : m.loadingNext}</p>
      </section>
    );
  else {
    const Component = trialKind(trial).component;
    // Focus moves to each new trial, so its name and question are what a screen reader says next.
    const label = m.trialOf(Math.min(trial.position + 1, snap.total), snap.total);
    body = <Component key={trial.position} spec={trial} env={env} finish={finish} advance={advance} skip={skip} label={label} />;
  }
  return (
    <>
      <div className="status-row">
        {snap.total > 0 && !snap.completion && !snap.stopped && <Progress position={snap.position} total={snap.total} />}
        <SaveStatus queue={snap.queue} />
      </div>
      {trial && !end && breakEvery && trial.position > 0 && trial.position % breakEvery === 0 && (
        // A suggestion, never a wall: the trial below is ready and nothing waits for the notice.
        <p className="card break-reminder" role="status">
          {m.breakReminder(trial.position)}
        </p>
      )}
      {body}
      {trial && !end && (
        <details className="card reopen-instructions">
          <summary>{m.instructions}</summary>
          <Markdown text={instructions} />
        </details>
      )}
      {trial && !end && <LeaveStudy session={session} />}
    </>
  );
}

export function ListenerApp({ study }: { study: string }) {
  const session = useMemo(() => new ListenerSession(study), [study]);
  // The clip on screen, the ones prefetched ahead, and one earlier (an attention check may reuse it).
  const clips = useMemo(() => new ClipCache(PREFETCH_AHEAD + 2), []);
  const [intro, setIntro] = useState<StudyIntro | null>(null);
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });
  const [busy, setBusy] = useState(false);
  const [audio, setAudio] = useState<AudioContext | null>(null);

  const load = useCallback(async () => {
    setPhase({ name: 'loading' });
    try {
      const i = await api.intro(study);
      const m = catalogues[i.language];
      setIntro(i);
      document.title = i.title;
      document.documentElement.lang = i.language;
      if (await session.resume()) setPhase(sessionEnd(session.snapshot()) ? { name: 'ended' } : { name: 'resume' });
      else if (i.status === 'closed') setPhase({ name: 'problem', title: m.closedTitle, text: m.closedText });
      else if (i.status !== 'open') setPhase({ name: 'problem', title: m.pausedTitle, text: m.pausedText });
      else setPhase({ name: 'welcome' });
    } catch (error) {
      // Without the study there is no study language: the page's own (English) is all there is.
      if (error instanceof HttpError && error.status === 404)
        setPhase({ name: 'problem', title: en.notFoundTitle, text: en.notFoundText });
      else setPhase({ name: 'problem', title: en.unreachableTitle, text: en.unreachableText, retry: () => void load() });
    }
  }, [study, session]);

  useEffect(() => void load(), [load]);

  // The Start press is the user gesture that lets this page make sound.
  const unlockAudio = () => {
    const ctx = audio ?? new AudioContext();
    void ctx.resume();
    setAudio(ctx);
  };

  // The questions before the trials come first when the listener has not answered them yet.
  const toTrials = (): Phase => (session.snapshot().questionsDue.before ? { name: 'questions' } : { name: 'trials' });

  /**
   * Where a started session goes, from what the server says of this participant's checks (in any
   * browser): screened out when a required check failed, else the checks not yet recorded, else the
   * trials. A check whose every attempt was begun (left by a reload) is recorded as not passed first.
   */
  const afterStart = async () => {
    if (!intro) return;
    for (const kind of session.screening().usedUp) await session.beginScreening({ kind, ...device() });
    const { done, failed } = session.screening();
    const rest = screeningKinds(intro).filter((k) => !done.includes(k));
    if (failed && intro.screening.required) setPhase({ name: 'screened-out' });
    else if (rest.length) setPhase({ name: 'screening', kinds: rest });
    else setPhase(toTrials());
  };

  // Whenever the server says this participant's required check failed (here, or in another browser
  // or session of theirs), the page says so instead of going on: no vote would be taken.
  useEffect(
    () =>
      session.subscribe(() => {
        if (intro?.screening.required && session.screening().failed) setPhase({ name: 'screened-out' });
      }),
    [session, intro],
  );

  const device = () => ({ userAgent: navigator.userAgent.slice(0, 512), audioOutput: audio ? audioOutput(audio) : {} });
  const screeningServer: ScreeningServer = {
    begin: (kind) => session.beginScreening({ kind, ...device() }),
    answer: (attempt, answers) => session.answerScreening(attempt, answers, device()),
    sound: (url) => session.screeningSound(url),
  };

  const begin = async () => {
    if (!intro || busy) return;
    unlockAudio();
    setBusy(true);
    try {
      await session.start(externalIds(intro));
      await afterStart();
    } catch (error) {
      // A study that needs no more listeners (ratings all given, or its stopping rule met) says so, in the study's language.
      if (error instanceof HttpError && (error.body?.error === 'study_complete' || error.body?.error === 'study_full')) {
        setPhase({ name: 'problem', title: m.completeTitle, text: m.completeText });
        return;
      }
      const text = error instanceof HttpError && error.body ? error.body.message : m.startFailedText;
      setPhase({ name: 'problem', title: m.startFailedTitle, text, retry: () => setPhase({ name: 'instructions' }) });
    } finally {
      setBusy(false);
    }
  };

  const env: TrialEnv | null = useMemo(
    () => (intro && audio ? { audio, clips, listening: intro.listening, question: intro.questionMarkdown, trial: intro.trial, trialComments: intro.trialComments } : null),
    [intro, audio, clips],
  );

  const m = intro ? catalogues[intro.language] : en;
  const sendComments = useMemo(() => (intro?.comments ? (text: string) => session.sendComments(text) : null), [intro, session]);
  const afterQuestions = useMemo(
    () => (intro?.questions.some((q) => q.when === 'after') ? { questions: intro.questions, send: (a: AnswersBody['answers']) => session.sendAnswers('after', a) } : null),
    [intro, session],
  );
  let content;
  switch (phase.name) {
    case 'loading':
      content = (
        <section className="card center" aria-busy="true">
          <div className="spinner" aria-hidden="true" />
          <p>{m.loading}</p>
        </section>
      );
      break;
    case 'problem':
      content = (
        <section className="card center" role="alert">
          <h2>{phase.title}</h2>
          <p>{phase.text}</p>
          {phase.retry && (
            <button type="button" className="primary" onClick={phase.retry} autoFocus>
              {m.tryAgain}
            </button>
          )}
        </section>
      );
      break;
    case 'welcome':
      content = (
        <Step id="welcome" title={m.welcome} action={m.agree} onAction={() => setPhase({ name: 'instructions' })}>
          <Markdown text={intro?.consentMarkdown ?? ''} />
          {intro && intro.estimate.trials > 0 && <p data-testid="expectation">{m.expectation(intro.estimate.trials, intro.estimate.seconds)}</p>}
          {intro && intro.screening.kind !== 'none' && <p>{m.headphoneCheckAhead}</p>}
        </Step>
      );
      break;
    case 'instructions':
      content = (
        <Step id="instructions" title={m.instructions} action={busy ? m.starting : m.start} disabled={busy} onAction={() => void begin()}>
          <Markdown text={intro?.instructionsMarkdown ?? ''} />
          {intro && intro.screening.kind !== 'none' && (
            <p>{m.headphoneCheckAhead}</p>
          )}
          <div className="callout">
            <Markdown text={intro?.questionMarkdown ?? ''} />
          </div>
          {intro && <IntroHints settings={intro.trial} touch={touchFirst()} />}
        </Step>
      );
      break;
    case 'resume':
      content = (
        <section className="card center" aria-labelledby="resume">
          <h2 id="resume">{m.welcomeBack}</h2>
          <p>{m.welcomeBackText}</p>
          <button
            type="button"
            className="primary"
            autoFocus
            onClick={() => {
              unlockAudio();
              void afterStart();
            }}
          >
            {m.continue}
          </button>
        </section>
      );
      break;
    case 'screening':
      content = env && (
        <ScreeningTrial key={phase.kinds[0]} spec={{ kind: phase.kinds[0] }} env={env} server={screeningServer} done={() => void afterStart()} />
      );
      break;
    case 'screened-out':
      content = (
        <section className="card center" role="alert">
          <h2>{m.screenedOutTitle}</h2>
          <p>{m.screenedOutText}</p>
          <p>{m.screenedOutReturn}</p>
        </section>
      );
      break;
    case 'questions':
      content = intro && (
        <Questionnaire questions={intro.questions} when="before" send={async (a) => (await session.sendAnswers('before', a), setPhase({ name: 'trials' }))} />
      );
      break;
    case 'trials':
      content = env && (
        <Trials session={session} env={env} instructions={intro?.instructionsMarkdown ?? ''} breakEvery={intro?.breakEvery ?? null} />
      );
      break;
    case 'ended':
      content = <Ended session={session} />;
      break;
  }

  return (
    <MessagesContext.Provider value={m}>
      <CommentsContext.Provider value={sendComments}>
        <AfterQuestionsContext.Provider value={afterQuestions}>
          <div className="page">
            <header className="top">
              <h1>{intro?.title ?? m.defaultTitle}</h1>
            </header>
            <main>{content}</main>
          </div>
        </AfterQuestionsContext.Provider>
      </CommentsContext.Provider>
    </MessagesContext.Provider>
  );
}
