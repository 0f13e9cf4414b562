/**
 * The live figures — dashboard, live JSON and HTML report, participants table, approvals file and
 * the export (JSON and zip) — computed by a thread of their own with its own read-only connection
 * to the database file, so a report of 200,000 votes (seconds of CPU) never holds up the event
 * loop that serves listeners. The thread calls the same functions the offline paths call
 * (dashboard, liveReport, participantTable, approvalsCsv, bundleChunks), so live = offline.
 *
 * - Cached per study: a figure is kept with the study's version (its last committed vote, its
 *   listeners' counts, its status and definition; liveRepository.version) and given again while
 *   that is unchanged, so polling an unchanged study costs one small query in the thread (none when
 *   nothing at all was committed since: PRAGMA data_version).
 * - At most one computation per figure and study at a time: a request for one in flight shares it
 *   (here, on the event loop's side), and the thread computes one figure at a time.
 * - Exports are streamed: the thread reads the votes as it writes the files (a snapshot on a
 *   connection of the stream's own) and hands over pieces of about 256 KiB only as fast as the
 *   HTTP response takes them, so memory stays bounded whatever the study's size.
 * - The thread runs at a lower CPU priority (nice 10) where the OS allows it: on a busy
 *   machine, listeners' requests and the vote writer come first.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Readable } from 'node:stream';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { renderReportHtml } from '../analysis/html';
import { reportWithPlan } from '../analysis/study-settings';
import { zipBundleChunks } from '../analysis/bundle-zip';
import { Dashboard, ParticipantTable } from '../contract/reports';
import { StudyPlan } from '../contract/studio';
import { parseTarget, planStudy, PlanError } from '../analysis/planner/plan';
import { PilotTooSmallError } from '../analysis/planner/pair-model';
import type { StaffRole } from '../contract/constants';
import { openDatabase, type Db } from '../db/open';
import { bundleChunks, liveBundle, type ExportView } from './bundle';
import { dashboard, livePaper, liveReport } from './live-report';
import { approvalsCsv, participantTable, platformIds } from './participants';
import { exportRepository } from './store/export';
import { liveRepository } from './store/live';
import { metaRepository } from './store/meta';

/** How a study's files go out: the export as JSON or zip, or the paper bundle (zip). */
export type BundleFormat = 'json' | 'zip' | 'paper';

/** A figure computed whole and sent as text. */
export type FigureKind = 'dashboard' | 'report' | 'html' | 'participants' | 'approvals';
/** What the thread computes and /metrics times: the figures and the planner. */
export type ComputedKind = FigureKind | 'plan';
type Ask =
  | { id: number; figure: FigureKind; study: string; status: Dashboard['status']; role: StaffRole }
  | { id: number; stream: BundleFormat; study: string; role: StaffRole }
  | { id: number; plan: PlanAsk }
  | { id: number; pull: true }
  | { id: number; cancel: true }
  | { close: true };
type Answer =
  | { id: number; text: string; computed: number; seconds?: number }
  | { id: number; chunk: Uint8Array }
  | { id: number; end: true }
  | { id: number; failed: string };

/** What the studio's planner box asks: a plan for `study` from the votes of `pilot` so far. */
export interface PlanAsk {
  study: string;
  pilot: string;
  target: string;
  itemsPerListener?: number;
}

/** The planner's answer: the plan, or why this pilot or target cannot give one (a 400 for the researcher). */
export type PlanAnswer = { plan: StudyPlan } | { refused: string };

interface FiguresData {
  liveFigures: { file: string };
}

export interface LiveFigures {
  /**
   * The figure as the route sends it: JSON text (dashboard, report, participants), HTML (html) or CSV
   * (approvals); the dashboard and the HTML report name listeners by platform id for a researcher only.
   */
  figure(kind: FigureKind, study: string, options?: { status?: Dashboard['status']; role?: StaffRole }): Promise<string>;
  /**
   * The planner (analysis/planner) on the pilot study's votes so far, as `npm run plan` runs it on
   * that study's export. Computed in the thread (seconds of simulation) and kept while the pilot is
   * unchanged, like a figure.
   */
  plan(ask: PlanAsk): Promise<PlanAnswer>;
  /** The study's export as `role` may see it: the bundle's JSON object, or the bundle zipped under `<study>-bundle/`. */
  bundle(study: string, role: StaffRole, format: BundleFormat): Readable;
  /** How many figures the thread has computed rather than taken from its cache, as of its last answer. */
  computations(): number;
  close(): Promise<void>;
}

/** A stream's pieces of text are gathered to about this size before they cross to the event loop. */
const PIECE = 256 * 1024;
/** The page cache of a download's connection (negative: KiB, as PRAGMA cache_size takes it). */
const STREAM_CACHE_KIB = -2048;
/**
 * The thread's young generation: what a stream turns over (rows, CSV lines, pieces) dies young, and a
 * smaller nursery is collected sooner, so a download's resident memory stays lower (8 MiB measured
 * 25 MiB less peak RSS than V8's default on the 1,000,000-vote export).
 */
const YOUNG_GENERATION_MB = 8;

/**
 * Starts the figures thread on the database file; `computedOne` hears of each figure computed
 * rather than taken from the cache, with its time in the thread (for /metrics).
 */
export function startLiveFigures(file: string, computedOne: (kind: ComputedKind, seconds: number) => void = () => undefined): LiveFigures {
  const data: FiguresData = { liveFigures: { file } };
  const pending = new Map<number, { resolve: (text: string) => void; reject: (e: unknown) => void }>();
  const streams = new Map<number, Readable>();
  const inFlight = new Map<string, Promise<string>>();
  const kinds = new Map<number, ComputedKind>();
  let nextId = 0;
  let computed = 0;
  let worker: Worker | null = null;
  let starting: Promise<Worker> | null = null;
  let closing = false;

  const failAll = (error: Error) => {
    worker = null;
    starting = null;
    const waiting = [...pending.values()];
    const open = [...streams.values()];
    pending.clear();
    streams.clear();
    for (const { reject } of waiting) reject(error);
    // Already out of `streams`, so their destroy sends the dead thread no cancel.
    for (const stream of open) stream.destroy(error);
  };
  // A thread that died (out of memory on a huge report, say) fails what it was doing; the next request starts another.
  const thread = (): Promise<Worker> => {
    if (worker) return Promise.resolve(worker);
    if (starting) return starting;
    const w = new Worker(new URL('./live-figures-thread.mjs', import.meta.url), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    starting = new Promise<Worker>((resolve, reject) => {
      w.once('message', () => resolve((worker = w)));
      w.once('error', reject);
    });
    w.on('message', (answer: Answer | 'ready') => {
      if (answer === 'ready') return;
      if ('text' in answer) {
        computed = answer.computed;
        if (answer.seconds !== undefined) computedOne(kinds.get(answer.id)!, answer.seconds);
        pending.get(answer.id)?.resolve(answer.text);
        pending.delete(answer.id);
        kinds.delete(answer.id);
      } else if ('chunk' in answer) {
        streams.get(answer.id)?.push(answer.chunk);
      } else if ('end' in answer) {
        streams.get(answer.id)?.push(null);
        streams.delete(answer.id);
      } else {
        const error = new Error(answer.failed);
        pending.get(answer.id)?.reject(error);
        pending.delete(answer.id);
        kinds.delete(answer.id);
        streams.get(answer.id)?.destroy(error);
        streams.delete(answer.id);
      }
    });
    w.on('error', (error) => failAll(error));
    w.on('exit', (code) => {
      if (!closing) failAll(new Error(`the live figures thread stopped (exit code ${code})`));
    });
    return starting;
  };
  const send = (ask: Ask) => {
    void thread().then((w) => w.postMessage(ask), (error: Error) => failAll(error));
  };

  // Started now but not waited for (a loaded machine takes seconds to load a thread's modules): the first
  // request waits for it instead of the server's start, and one that fails to start is tried again.
  thread().catch(() => undefined);
  return {
    figure(kind, study, { status = 'open', role = 'analyst' } = {}) {
      const key = figureKey(kind, study, status, role);
      let shared = inFlight.get(key);
      if (!shared) {
        const id = nextId++;
        shared = new Promise<string>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          kinds.set(id, kind);
          send({ id, figure: kind, study, status, role });
        }).finally(() => inFlight.delete(key));
        inFlight.set(key, shared);
      }
      return shared;
    },
    plan(ask) {
      const key = planKey(ask);
      let shared = inFlight.get(key);
      if (!shared) {
        const id = nextId++;
        shared = new Promise<string>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          kinds.set(id, 'plan');
          send({ id, plan: ask });
        }).finally(() => inFlight.delete(key));
        inFlight.set(key, shared);
      }
      return shared.then((text) => JSON.parse(text) as PlanAnswer);
    },
    bundle(study, role, format) {
      const id = nextId++;
      const stream = new Readable({
        highWaterMark: 4 * PIECE,
        read: () => send({ id, pull: true }),
        destroy: (error, callback) => {
          // The client went away (or the thread failed): the thread stops reading and ends its snapshot.
          if (streams.delete(id)) send({ id, cancel: true });
          callback(error);
        },
      });
      streams.set(id, stream);
      send({ id, stream: format, study, role });
      return stream;
    },
    computations: () => computed,
    async close() {
      closing = true;
      const w = worker ?? (starting ? await starting.catch(() => null) : null);
      if (!w) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage({ close: true } satisfies Ask);
      await exited;
    },
  };
}

/** What a figure depends on beyond its study: the dashboard its status, the figures that may name platform ids the viewer's role. */
function figureKey(kind: FigureKind, study: string, status: Dashboard['status'], role: StaffRole): string {
  const byRole = kind === 'dashboard' || kind === 'html' ? role : '';
  return `${kind}\u0000${study}\u0000${kind === 'dashboard' ? status : ''}\u0000${byRole}`;
}

function planKey({ study, pilot, target, itemsPerListener }: PlanAsk): string {
  return `plan\u0000${study}\u0000${pilot}\u0000${target.replace(/\s/g, '')}\u0000${itemsPerListener ?? ''}`;
}

/** A plan from the pilot's export rows (the bundle its export would write), or the planner's reason for giving none. */
function planFrom(db: Db, ask: PlanAsk): PlanAnswer {
  try {
    const target = parseTarget(ask.target);
    const bundle = liveBundle(exportRepository(db).rows(ask.pilot));
    const plan = planStudy(bundle, target, { design: { itemsPerListener: ask.itemsPerListener } });
    const m = plan.model;
    return {
      plan: StudyPlan.parse({
        study: ask.study, pilot: ask.pilot, target, listeners: plan.listeners, votes: plan.votes,
        itemsPerListener: plan.itemsPerListener, checksPerListener: m.checksPerListener, predictedWidth: plan.predictedWidth,
        widthSpread: plan.widthSpread, interval: plan.interval,
        model: {
          systems: m.systems.length, careless: m.careless,
          positionBias: 'positionBias' in m ? m.positionBias : null,
          listenerBias: 'listenerBias' in m ? m.listenerBias : null,
          residual: 'residual' in m ? m.residual : null,
        },
      }),
    };
  } catch (error) {
    if (error instanceof PlanError || error instanceof PilotTooSmallError) return { refused: `pilot ${ask.pilot}: ${error.message}` };
    throw error;
  }
}

/** The export's pieces of text as one JSON object, {"items.csv": "…", …}, written as it is read. */
function* jsonObject(files: Iterable<[string, Iterable<string>]>): Generator<string> {
  let separator = '{';
  for (const [name, chunks] of files) {
    yield `${separator}${JSON.stringify(name)}:"`;
    separator = ',';
    for (const chunk of chunks) yield JSON.stringify(chunk).slice(1, -1);
    yield '"';
  }
  yield separator === '{' ? '{}' : '}';
}

/** Text pieces gathered to about PIECE characters, as bytes. */
function* gathered(texts: Iterable<string>): Generator<Uint8Array> {
  const encoder = new TextEncoder();
  let piece = '';
  for (const text of texts) {
    piece += text;
    if (piece.length >= PIECE) {
      yield encoder.encode(piece);
      piece = '';
    }
  }
  if (piece) yield encoder.encode(piece);
}

/** One study's export as bytes, from a snapshot on a connection of its own (closed when the stream ends or is cancelled). */
function* exportBytes(file: string, study: string, view: ExportView, format: BundleFormat): Generator<Uint8Array> {
  const db = openDatabase(file, { readonly: true });
  if (format === 'paper') {
    // Tables, numbers, methods and figures: small text files, made whole (the analysis reads every vote anyway).
    try {
      yield* zipBundleChunks(`${study}-paper`, livePaper(db, study).map(([name, text]): [string, string[]] => [name, [text]]));
    } finally {
      db.close();
    }
    return;
  }
  // The votes query sorts in a temporary b-tree sized by the page cache, spilling to a file beyond it: 2 MiB
  // (instead of better-sqlite3's 16) keeps a download's memory small, and a sequential read gains nothing from more.
  db.pragma(`cache_size = ${STREAM_CACHE_KIB}`);
  try {
    const rows = exportRepository(db).snapshot(study);
    try {
      const files = bundleChunks(rows, view);
      yield* format === 'zip' ? zipBundleChunks(`${study}-bundle`, files) : gathered(jsonObject(files));
    } finally {
      rows.end();
    }
  } finally {
    db.close();
  }
}

/**
 * How far the figures thread yields the CPU: at nice 10 a busy core gives it about a tenth of the
 * time of the event loop or the vote writer (nice 0), and all the time nobody else wants. (Nice 19,
 * a seventieth, starved the figures whenever anything else on the machine was busy.)
 */
const NICE = 10;

/** Lowers this thread (not the process) to NICE on Linux, where a thread has its own id; elsewhere it keeps its priority. */
function lowerPriority(): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), NICE);
  } catch {
    // no /proc (not Linux) or not permitted: the figures still run, only at normal priority
  }
}

function serveFigures(file: string): void {
  lowerPriority();
  const db: Db = openDatabase(file, { readonly: true });
  const live = liveRepository(db);
  const pseudonymKey = metaRepository(db).pseudonymKey();
  const cache = new Map<string, { dataVersion: number; version: string; text: string }>();
  const streams = new Map<number, { bytes: Generator<Uint8Array>; credit: number }>();
  let computed = 0;

  // The recruiting platform's ids are the researcher's to see (as in the participants table).
  const idsFor = (role: StaffRole, study: string) => (role === 'researcher' ? platformIds(db, study) : null);
  const compute = (kind: FigureKind, study: string, status: Dashboard['status'], role: StaffRole): string => {
    switch (kind) {
      case 'dashboard':
        return JSON.stringify(Dashboard.parse(dashboard(db, study, status, idsFor(role, study))));
      case 'report': {
        const { report, header } = liveReport(db, study);
        return JSON.stringify(reportWithPlan(report, header));
      }
      case 'html': {
        const { report, header } = liveReport(db, study);
        const ids = idsFor(role, study);
        return renderReportHtml(report, { ...header, ...(ids && { platformIds: Object.fromEntries(ids) }) });
      }
      case 'participants':
        return JSON.stringify(ParticipantTable.parse({ study, participants: participantTable(db, study) }));
      case 'approvals':
        return approvalsCsv(participantTable(db, study));
    }
  };
  const plans = new Map<string, { version: string; text: string }>();
  /** A plan is kept while its pilot is unchanged (the figures' cache rule, by the pilot's version). */
  const plan = (ask: PlanAsk): { text: string; seconds?: number } => {
    const key = planKey(ask);
    const version = live.version(ask.pilot);
    const held = plans.get(key);
    if (held && held.version === version) return { text: held.text };
    const started = performance.now();
    const text = JSON.stringify(planFrom(db, ask));
    computed++;
    plans.set(key, { version, text });
    return { text, seconds: (performance.now() - started) / 1000 };
  };
  /** The figure's text, and its computing time in seconds when it was computed rather than cached. */
  const figure = (kind: FigureKind, study: string, status: Dashboard['status'], role: StaffRole): { text: string; seconds?: number } => {
    const key = figureKey(kind, study, status, role);
    const dataVersion = db.pragma('data_version', { simple: true }) as number;
    const held = cache.get(key);
    if (held && held.dataVersion === dataVersion) return { text: held.text };
    const version = live.version(study);
    if (held && held.version === version) {
      held.dataVersion = dataVersion;
      return { text: held.text };
    }
    const started = performance.now();
    const text = compute(kind, study, status, role);
    computed++;
    cache.set(key, { dataVersion, version, text });
    return { text, seconds: (performance.now() - started) / 1000 };
  };
  const pump = (id: number) => {
    const stream = streams.get(id);
    if (!stream) return;
    try {
      while (stream.credit > 0) {
        const next = stream.bytes.next();
        if (next.done) {
          streams.delete(id);
          parentPort!.postMessage({ id, end: true } satisfies Answer);
          return;
        }
        stream.credit--;
        const chunk = next.value;
        parentPort!.postMessage({ id, chunk } satisfies Answer, [chunk.buffer as ArrayBuffer]);
      }
    } catch (error) {
      streams.delete(id);
      parentPort!.postMessage({ id, failed: error instanceof Error ? error.message : String(error) } satisfies Answer);
    }
  };

  parentPort!.on('message', (ask: Ask) => {
    if ('close' in ask) {
      for (const { bytes } of streams.values()) bytes.return(undefined);
      db.close();
      process.exit(0);
    }
    const { id } = ask;
    if ('figure' in ask) {
      try {
        const { text, seconds } = figure(ask.figure, ask.study, ask.status, ask.role);
        parentPort!.postMessage({ id, text, computed, ...(seconds !== undefined && { seconds }) } satisfies Answer);
      } catch (error) {
        parentPort!.postMessage({ id, failed: error instanceof Error ? error.message : String(error) } satisfies Answer);
      }
    } else if ('plan' in ask) {
      try {
        const { text, seconds } = plan(ask.plan);
        parentPort!.postMessage({ id, text, computed, ...(seconds !== undefined && { seconds }) } satisfies Answer);
      } catch (error) {
        parentPort!.postMessage({ id, failed: error instanceof Error ? error.message : String(error) } satisfies Answer);
      }
    } else if ('stream' in ask) {
      const view: ExportView = ask.role === 'researcher' ? { role: 'researcher' } : { role: 'analyst', pseudonymKey };
      streams.set(id, { bytes: exportBytes(file, ask.study, view, ask.stream), credit: 0 });
    } else if ('pull' in ask) {
      const stream = streams.get(id);
      if (stream) stream.credit++;
      pump(id);
    } else {
      streams.get(id)?.bytes.return(undefined);
      streams.delete(id);
    }
  });
  parentPort!.postMessage('ready');
}

if (!isMainThread && (workerData as Partial<FiguresData> | null)?.liveFigures) serveFigures((workerData as FiguresData).liveFigures.file);
