import { z } from 'zod';
import type { Db } from '../db/open';
import { describeIssue } from './metaset';
import { ImportReport } from './report';
import { manifestStore } from './store';

const Slot = z.string().trim().min(1);
export const DeliveryPlan = z.object({
  emotion: Slot,
  intent: Slot,
  pitch: Slot,
  energy: Slot,
  rate: Slot,
  pause: Slot,
  stance: Slot,
  emphasis: z.array(Slot),
});
export type DeliveryPlan = z.infer<typeof DeliveryPlan>;

const VoxCase = z.looseObject({
  case_id: z.string().trim().min(1),
  target_text: z.string().optional(),
  gold_plan: DeliveryPlan,
  counterfactuals: z.array(
    z.looseObject({
      edit_id: z.string().trim().min(1),
      changed_cue_id: z.string().optional(),
      description: z.string().optional(),
      expected_plan_delta: DeliveryPlan.partial(),
    }),
  ),
  metadata: z.looseObject({
    source_record_id: z.string().regex(/^\d\d(-\d\d){6}$/, 'must be a RAVDESS file stem like 03-01-02-01-02-01-02'),
    context_audio_sha256: z.string().optional(),
  }),
});

/** The task name VoxReason plan descriptions are stored under (they are not MetaSet caption tasks). */
export const PLAN_TASK = 'delivery_plan';
export const GOLD_SYSTEM = 'voxreason-gold';

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A short, deterministic description of how a line should be delivered, e.g.
 * "Calm and supportive, to reassure: lowered pitch, low energy, slow rate, medium pauses; emphasis on 'calm'."
 */
export function describePlan(plan: DeliveryPlan): string {
  const mood = plan.emotion === plan.stance ? capitalise(plan.emotion) : `${capitalise(plan.emotion)} and ${plan.stance}`;
  const manner = [`${plan.pitch} pitch`, `${plan.energy} energy`, `${plan.rate} rate`, `${plan.pause} pauses`].join(', ');
  const emphasis = plan.emphasis.length > 0 ? `; emphasis on ${plan.emphasis.map((w) => `'${w}'`).join(' and ')}` : '';
  return `${mood}, to ${plan.intent.replace(/_/g, ' ')}: ${manner}${emphasis}.`.replace(/_/g, ' ');
}

/** A counterfactual edit's system name, shared by every case that makes the same kind of edit. */
export function counterfactualSystem(caseId: string, editId: string): string {
  const edit = editId.startsWith(`${caseId}_`) ? editId.slice(caseId.length + 1) : editId;
  return `voxreason-cf:${edit}`;
}

export interface VoxreasonOptions {
  onFailure?: (line: string) => void;
  report?: ImportReport;
  /** The file's text, already read (the study build reads sources asynchronously, within a size cap). */
  text?: string;
}

export interface VoxreasonCase {
  /** `file:line` */
  where: string;
  caseId: string;
  utteranceId: string;
  audioSha256: string | undefined;
  /** The gold plan's description (system voxreason-gold) and each counterfactual's, under task delivery_plan. */
  captions: { system: string; text: string }[];
}

/** The cases of a VoxReason JSONL text, without touching the manifest; problems go to the report. */
export function parseVoxreasonCases(file: string, text: string, report: ImportReport): VoxreasonCase[] {
  const cases: VoxreasonCase[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      report.fail(where, 'not valid JSON (a VoxReason cases file has one JSON object per line)');
      return;
    }
    const parsed = VoxCase.safeParse(raw);
    if (!parsed.success) {
      report.fail(where, describeIssue(parsed.error));
      return;
    }
    const vox = parsed.data;
    cases.push({
      where,
      caseId: vox.case_id,
      utteranceId: `ravdess:${vox.metadata.source_record_id}`,
      audioSha256: vox.metadata.context_audio_sha256,
      captions: [
        { system: GOLD_SYSTEM, text: describePlan(vox.gold_plan) },
        ...vox.counterfactuals.map((cf) => ({ system: counterfactualSystem(vox.case_id, cf.edit_id), text: describePlan({ ...vox.gold_plan, ...cf.expected_plan_delta }) })),
      ],
    });
  });
  return cases;
}

/** One warning for all the plans whose clip the manifest (or the study) lacks: a corpus subset is normal. */
export function warnSkippedPlans(file: string, skipped: number, report: ImportReport): void {
  if (skipped > 0) report.warn(file, `${skipped} plan${skipped === 1 ? '' : 's'} skipped: clip not in the manifest`);
}

/**
 * Imports VoxReason cases (JSONL): each case's gold plan and counterfactual plans become captions
 * (systems voxreason-gold and voxreason-cf:<edit>) of the RAVDESS utterance the case was built from.
 * Cases whose clip was not imported (a corpus subset) are skipped and counted ('plans skipped'),
 * for the caller to warn about once however many files it imports.
 */
export function importVoxreasonFile(db: Db, file: string, options: VoxreasonOptions = {}): ImportReport {
  const report = options.report ?? new ImportReport(options.onFailure);
  const text = options.text ?? report.readInputFile(file);
  if (text === undefined) return report;
  const store = manifestStore(db);
  let skipped = 0;
  db.transaction(() => {
    for (const vox of parseVoxreasonCases(file, text, report)) {
      const linked = store.utteranceClip(vox.utteranceId);
      if (!linked) {
        skipped++;
        continue;
      }
      if (vox.audioSha256 && linked.sha256 && linked.sha256 !== vox.audioSha256) {
        report.warn(vox.where, `case ${vox.caseId}: the imported audio differs from the file VoxReason labelled (sha256 mismatch)`);
      }
      for (const caption of vox.captions) store.upsertCaption(vox.utteranceId, caption.system, PLAN_TASK, caption.text);
      report.count('cases');
      report.count('captions', vox.captions.length);
    }
  })();
  if (skipped > 0) report.count('plans skipped', skipped);
  return report;
}
