/**
 * A study's own material: the utterances, captions and judge scores its declared `sources:`
 * hold, read straight from those files (a dry run: nothing is written). The build plans from
 * this, not from the shared manifest, so a study never draws on what another study (or a manual
 * import) brought into the data dir, and another study's import cannot change what this one
 * samples or exports. Validate reads the same material, so "valid" means "builds".
 *
 * A file that does not parse is a problem at file:line:column with the format expected and where
 * it is documented (studies/README.md). Problems never quote the file's content.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { LineCounter, parseDocument, isMap, isSeq, isScalar } from 'yaml';
import type { Labels } from '../audio-manifest';
import { judgeScoreRows, metasetIdentity } from '../audio-manifest/judge';
import { describeIssue, locateAudio, metasetUtteranceId, MetasetRecord, oracleCaptions, pickLabels, succeeded, systemCaptions } from '../audio-manifest/metaset';
import { ravdessCandidates } from '../audio-manifest/ravdess';
import { planRenditions, STUDY_SOURCES, undecodable, UtteranceIndex } from '../audio-manifest/renditions';
import { unplayableFiles } from '../audio-manifest/check';
import { ImportReport } from '../audio-manifest/report';
import { vctkCandidates } from '../audio-manifest/vctk';
import { PLAN_TASK, parseVoxreasonCases, warnSkippedPlans } from '../audio-manifest/voxreason';
import { StudyDefinitionError, type DefinitionProblem } from './parse';
import { confine, readSourceText, SourceRefusal } from './roots';
import type { StudySource } from '../contract/study-definition';

export interface MaterialUtterance {
  id: string;
  corpus: string;
  labels: Labels;
  /** Absolute path of the utterance's audio file; null when its source names none that exists. */
  audio: string | null;
}

export interface MaterialCaption {
  utteranceId: string;
  system: string;
  task: string;
  text: string;
}

export interface MaterialScore {
  utteranceId: string;
  system: string;
  judge: string;
  run: string;
  score: number;
}

/** A system's audio of an utterance (a `renditions` source). */
export interface MaterialRendition {
  utteranceId: string;
  system: string;
  /** Absolute path of the rendition's audio file. */
  audio: string;
}

export interface StudyMaterial {
  utterances: Map<string, MaterialUtterance>;
  captions: MaterialCaption[];
  /** By `${utteranceId}\u0000${system}`. */
  renditions: Map<string, MaterialRendition>;
  judgeScores: MaterialScore[];
  /** Things the researcher should know that do not stop the build (one line each). */
  notes: string[];
}

const README = 'studies/README.md';
const FORMATS = {
  metaset: { expected: 'a JSON array of caption records ({ "wav_path", "generated_captions", "metadata" })', doc: `${README}#caption-files-metaset` },
  judge: { expected: 'judge output JSON ({ "individual_results": [...] }) or a CSV with header utterance_id,system,judge,run,score', doc: `${README}#judge-outputs` },
  voxreason: { expected: 'JSON Lines: one VoxReason case object per line', doc: `${README}#voxreason-plans` },
  ravdess: { expected: 'a RAVDESS folder: Actor_XX/MM-VV-EE-II-SS-RR-AA.wav', doc: `${README}#ravdess-folders` },
  renditions: {
    expected: 'a folder <system>/<utterance-or-file-stem>.wav|.flac, or a list: CSV with header utterance_id,system,path or a JSON array of { "utterance_id", "system", "path" }',
    doc: 'docs/renditions.md',
  },
  vctk: { expected: 'a VCTK folder: wav48/pNNN/pNNN_NNN.wav (0.80) or wav48_silence_trimmed/pNNN/pNNN_NNN_micN.flac (0.92), with speaker-info.txt', doc: `${README}#vctk-folders` },
} as const;

/** Where in a source file a problem is: a line (JSONL, CSV) or a path into the JSON value. */
type Spot = { line: number } | { path: (string | number)[] } | null;

/** Collects problems per file, finding line and column only when there is something to report. */
class Problems {
  readonly list: DefinitionProblem[] = [];
  constructor(private readonly studyDir: string) {}

  display(file: string): string {
    const rel = relative(this.studyDir, file);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
  }

  add(file: string, text: string | undefined, kind: keyof typeof FORMATS, spot: Spot, field: string, message: string): void {
    const { line, column } = locate(text, spot);
    this.list.push({ file: this.display(file), line, column, field, message: `${message} (expected ${FORMATS[kind].expected}; see ${FORMATS[kind].doc})` });
  }

  /** An importer's report lines (`file [record N]`, `file:N`, `file`) as located problems. */
  fromReport(report: ImportReport, file: string, text: string | undefined, kind: keyof typeof FORMATS, item: 'record' | 'result'): void {
    for (const failure of report.failures) {
      const indexed = failure.file.match(/ \[(?:record|result) (\d+)\]$/);
      const lined = failure.file.match(/:(\d+)$/);
      const spot: Spot = indexed ? { path: item === 'result' ? ['individual_results', Number(indexed[1])] : [Number(indexed[1])] } : lined ? { line: Number(lined[1]) } : null;
      this.add(file, text, kind, spot, indexed ? `${item} ${indexed[1]}` : '', failure.reason);
    }
  }
}

function locate(text: string | undefined, spot: Spot): { line: number; column: number } {
  if (!spot || text === undefined) return { line: 1, column: 1 };
  if ('line' in spot) return { line: spot.line, column: 1 };
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  let node: unknown = doc.contents;
  for (const step of spot.path) {
    if (isSeq(node) && typeof step === 'number') node = node.items[step];
    else if (isMap(node)) node = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step)?.value;
    else break;
  }
  const offset = node && typeof node === 'object' && 'range' in node && Array.isArray(node.range) ? (node.range[0] as number) : 0;
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

/** JSON.parse, or a located problem that says what the file looks like instead (never what it holds). */
function parseJson(text: string, file: string, kind: keyof typeof FORMATS, problems: Problems): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines });
    const { line, col } = doc.errors[0] ? lines.linePos(doc.errors[0].pos[0]) : { line: 1, col: 1 };
    const firstLine = text.split(/\r?\n/, 1)[0];
    const looks = /^\s*[[{]/.test(text) ? 'is not valid JSON' : firstLine.includes(',') ? 'is not JSON: it looks like CSV' : 'is not JSON';
    problems.list.push({ file: problems.display(file), line, column: col, field: '', message: `${looks} (expected ${FORMATS[kind].expected}; see ${FORMATS[kind].doc})` });
    return undefined;
  }
}

export interface MaterialOptions {
  roots: readonly string[];
  /** Where relative file names in problems start from (the study folder). */
  studyDir: string;
}

const ORDER: StudySource['kind'][] = ['ravdess', 'vctk', 'metaset', 'voxreason', 'renditions', 'judge'];

/**
 * Reads every declared source (already resolved and confined by resolveSources) into the
 * study's material. Corpus folders first, then caption files, then the plans and judge outputs
 * that refer to them. Throws StudyDefinitionError listing every unreadable or malformed file.
 */
export async function readMaterial(sources: readonly StudySource[], options: MaterialOptions): Promise<StudyMaterial> {
  const material: StudyMaterial = { utterances: new Map(), captions: [], renditions: new Map(), judgeScores: [], notes: [] };
  const problems = new Problems(options.studyDir);
  const wavPaths = new Map<string, string>();
  // The real path of each corpus folder's clip → its utterance id: caption records of the same file join it.
  const corpusFiles = new Map<string, string>();
  // As in the manifest, a later file's score for the same caption, judge and run replaces an earlier one.
  const scores = new Map<string, MaterialScore>();
  // Plans without a clip among the study's sources, over all its plan files: one note, however they are split.
  const skippedPlans = { files: [] as string[], count: 0 };
  const ordered = [...sources].sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));

  for (const source of ordered) {
    const report = new ImportReport();
    switch (source.kind) {
      case 'ravdess':
      case 'vctk': {
        const candidates = source.kind === 'ravdess' ? ravdessCandidates(source.dir, report) : vctkCandidates(source.dir, { mic: source.mic === 'mic2' ? 2 : 1 }, report);
        for (const c of candidates) {
          const u = c.utterance!;
          material.utterances.set(u.id, { id: u.id, corpus: u.corpus, labels: u.labels ?? c.labels, audio: c.file });
          corpusFiles.set(realpathSync(c.file), u.id);
        }
        // Each clip decoded now: a file the build could not import is refused here, at validate, by name.
        for (const [file, reason] of await unplayableFiles(candidates.map((c) => c.file))) problems.add(file, undefined, source.kind, null, '', `${reason}; fix or remove the file`);
        // A corpus folder may hold files that are not its clips: skip them, say how many and why.
        const reasons = new Map<string, number>();
        for (const f of report.failures) reasons.set(f.reason, (reasons.get(f.reason) ?? 0) + 1);
        for (const [reason, n] of reasons) material.notes.push(`${problems.display(source.dir)}: ${n} file${n === 1 ? '' : 's'} skipped: ${reason} (expected ${FORMATS[source.kind].expected}; see ${FORMATS[source.kind].doc})`);
        break;
      }
      case 'metaset': {
        const text = await readSourceText(options.roots, source.file);
        const records = parseJson(text, source.file, 'metaset', problems);
        if (records === undefined) break;
        if (!Array.isArray(records)) {
          problems.add(source.file, text, 'metaset', null, '', 'the file holds one JSON value that is not an array');
          break;
        }
        const root = source.audioRoot;
        const realRoot = realpathSync(root);
        records.forEach((raw, index) => {
          const parsed = MetasetRecord.safeParse(raw);
          if (!parsed.success) return report.fail(`${source.file} [record ${index}]`, describeIssue(parsed.error));
          const record = parsed.data;
          const { source: corpus, relative_audio_path: rel } = record.metadata;
          const found = locateAudio(root, realRoot, [rel, `${corpus}/${rel}`]);
          if (found.refused) return report.fail(`${source.file} [record ${index}]`, `metadata.relative_audio_path ${found.refused.replace('--audio-root', 'audioRoot')}`);
          // A record of a file the study's corpus folder holds too is that corpus's utterance (vctk:p225_001), not a second one.
          const same = found.file ? corpusFiles.get(realpathSync(found.file)) : undefined;
          const id = same ?? metasetUtteranceId(corpus, rel);
          const known = material.utterances.get(id);
          material.utterances.set(
            id,
            same
              ? { ...known!, labels: { ...known!.labels, ...pickLabels(record.metadata) } }
              : { id, corpus: 'metaset', labels: pickLabels(record.metadata), audio: found.file ?? known?.audio ?? null },
          );
          wavPaths.set(record.wav_path, id);
          const captions = [...oracleCaptions(record), ...(succeeded(record) ? systemCaptions(record, source.system) : [])];
          for (const c of captions) material.captions.push({ utteranceId: id, ...c });
        });
        problems.fromReport(report, source.file, text, 'metaset', 'record');
        break;
      }
      case 'voxreason': {
        const text = await readSourceText(options.roots, source.file);
        let skipped = 0;
        for (const vox of parseVoxreasonCases(source.file, text, report)) {
          if (!material.utterances.has(vox.utteranceId)) {
            skipped++;
            continue;
          }
          for (const c of vox.captions) material.captions.push({ utteranceId: vox.utteranceId, system: c.system, task: PLAN_TASK, text: c.text });
        }
        if (skipped > 0) skippedPlans.files.push(problems.display(source.file));
        skippedPlans.count += skipped;
        problems.fromReport(report, source.file, text, 'voxreason', 'record');
        break;
      }
      case 'renditions': {
        const input = source.dir ?? source.file!;
        const text = source.file === undefined ? undefined : await readSourceText(options.roots, source.file);
        const index = new UtteranceIndex([...material.utterances.values()].map((u) => ({ id: u.id, clipPath: u.audio })));
        const files = planRenditions([input], index, report, { system: source.system, scope: STUDY_SOURCES, texts: text === undefined ? undefined : new Map([[input, text]]) });
        for (const f of files) {
          // A list may name files anywhere: each must lie inside the corpus roots, like every source.
          await confine(options.roots, f.file, 'file').catch((error: unknown) => {
            if (!(error instanceof SourceRefusal)) throw error;
            report.fail(f.where, `path: ${error.message}`);
          });
        }
        const byFile = new Map(files.map((f) => [f.file, f]));
        // Each rendition decoded now, as the import will: a file it could not import is refused here, at validate.
        for (const [file, reason] of await unplayableFiles(files.map((f) => f.file))) {
          const refused = undecodable(byFile.get(file)!, reason);
          report.fail(refused.file, refused.reason);
        }
        for (const f of files) material.renditions.set(`${f.utteranceId}\u0000${f.system}`, { utteranceId: f.utteranceId, system: f.system, audio: f.file });
        for (const w of report.warnings) material.notes.push(`${problems.display(input)}: ${w.reason}`);
        if (text !== undefined) problems.fromReport(report, input, text, 'renditions', 'record');
        else for (const f of report.failures) problems.add(f.file, undefined, 'renditions', null, '', f.reason);
        break;
      }
      case 'judge': {
        const text = await readSourceText(options.roots, source.file);
        const json = !source.file.toLowerCase().endsWith('.csv');
        if (json && parseJson(text, source.file, 'judge', problems) === undefined) break;
        const metasetIds = new Set([...material.utterances.values()].filter((u) => u.corpus === 'metaset').map((u) => u.id));
        const rows = judgeScoreRows(
          source.file,
          text,
          { system: source.system, judge: source.judge, run: source.run === undefined ? undefined : String(source.run) },
          (wavPath) => wavPaths.get(wavPath) ?? metasetIdentity(wavPath, metasetIds),
          report,
        );
        // A score for a clip or system the study does not declare belongs to no caption or rendition it shows.
        const captioned = new Set([...material.captions.map((c) => `${c.utteranceId}\u0000${c.system}`), ...material.renditions.keys()]);
        let unmatched = 0;
        for (const row of rows ?? []) {
          if (row.score === null) continue;
          if (!captioned.has(`${row.utteranceId}\u0000${row.system}`)) unmatched++;
          else scores.set([row.utteranceId, row.system, row.judge, row.run].join('\u0000'), { utteranceId: row.utteranceId, system: row.system, judge: row.judge, run: row.run, score: row.score });
        }
        if (unmatched > 0) material.notes.push(`${problems.display(source.file)}: ${unmatched} score${unmatched === 1 ? '' : 's'} skipped: no caption or rendition of that system for that clip among the study's sources`);
        // Rows naming a wav_path no caption file of the study has are the same partial-corpus case.
        const unresolved = report.failures.filter((f) => f.reason.startsWith('no imported utterance has wav_path'));
        if (unresolved.length > 0) material.notes.push(`${problems.display(source.file)}: ${unresolved.length} score${unresolved.length === 1 ? '' : 's'} skipped: wav_path not in the study's caption files`);
        const rest = new ImportReport();
        report.failures.filter((f) => !unresolved.includes(f)).forEach((f) => rest.fail(f.file, f.reason));
        problems.fromReport(rest, source.file, text, 'judge', 'result');
        break;
      }
    }
  }
  if (problems.list.length > 0) throw new StudyDefinitionError(problems.list);
  const planNote = new ImportReport();
  warnSkippedPlans(skippedPlans.files.join(', '), skippedPlans.count, planNote);
  material.notes.push(...planNote.warnings.map((w) => `${w.file}: ${w.reason}`));
  material.judgeScores = [...scores.values()];
  return material;
}
