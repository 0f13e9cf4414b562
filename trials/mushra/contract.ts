/**
 * The MUSHRA kind's shapes (ITU-R BS.1534-3, analysis-spec §5.3): what study.yaml says of it, what a
 * listener receives, what a vote carries and what is stored. An item is one utterance on one page:
 * the open reference (the reference system's rendition, labelled, not rated) and N ≤ 12 rated
 * stimuli — the hidden reference (the same rendition), the 3.5 kHz and 7 kHz low-pass anchors made
 * from it (audio-manifest/anchors.ts) and each system's rendition — in an order drawn per listener.
 */
import { z } from 'zod';
import { MAX_STIMULI } from '../../contract/constants';
import { TrialClip } from '../../contract/trials/clip';
import { SystemName, UtteranceFilter, UtteranceId } from '../../contract/study-items';

export const MUSHRA_ANCHORS = ['anchor35', 'anchor70'] as const;
export type MushraAnchor = (typeof MUSHRA_ANCHORS)[number];

/** Where the open reference's button stands on the page, relative to the rated stimuli. */
export const MUSHRA_REFERENCE_POSITIONS = ['above', 'below'] as const;

/** The rated stimuli of a page: the hidden reference, the anchors and the systems (BS.1534-3: at most 12). */
export const mushraStimulusCount = (settings: { anchors: readonly string[]; systems: readonly string[] }) => 1 + settings.anchors.length + settings.systems.length;

/** study.yaml `trial:` for a MUSHRA study. */
export const MushraSettings = z
  .object({
    kind: z.literal('mushra'),
    // Missing is read as empty, so the refusal says what is accepted rather than just "required".
    reference: z.preprocess((v) => v ?? '', z.string()),
    anchors: z.array(z.enum(MUSHRA_ANCHORS)).default([...MUSHRA_ANCHORS]),
    systems: z.array(SystemName).min(1, 'a MUSHRA page rates at least one system against the reference: list them (trial: { kind: mushra, reference: <system>, systems: [<system>, …] })'),
    /** BS.1534-3's post-screening (rule `mushra`, trials/mushra/report.ts); false turns it off */
    excludeMushraScreening: z.boolean().default(true),
    /** Where the open reference's button stands: above the rated stimuli (the default) or below them. The same on every page. */
    referencePosition: z.enum(MUSHRA_REFERENCE_POSITIONS).default('above'),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.reference === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['reference'],
        message: s.anchors.length > 0
          ? `the anchors (${s.anchors.join(', ')}) are made from the reference's rendition and the hidden reference is that rendition: name the reference system here (trial: { kind: mushra, reference: <a system with renditions>, anchors: [anchor35, anchor70], systems: [...] })`
          : 'a MUSHRA study rates each system against a reference: name its system here (trial: { kind: mushra, reference: <a system with renditions>, systems: [...] })',
      });
    }
    if (new Set(s.anchors).size < s.anchors.length) ctx.addIssue({ code: 'custom', path: ['anchors'], message: 'names an anchor twice: each of anchor35, anchor70 at most once' });
    const seen = new Set<string>();
    s.systems.forEach((system, i) => {
      if (system === s.reference) ctx.addIssue({ code: 'custom', path: ['systems', i], message: `is the reference (${system}): the hidden reference is on every page already; list the other systems` });
      if (seen.has(system)) ctx.addIssue({ code: 'custom', path: ['systems', i], message: `lists ${system} twice` });
      seen.add(system);
    });
    const n = mushraStimulusCount(s);
    if (n > MAX_STIMULI) {
      ctx.addIssue({
        code: 'custom',
        path: ['systems'],
        message: `a page would have ${n} stimuli (the hidden reference, ${s.anchors.length} anchor${s.anchors.length === 1 ? '' : 's'} and ${s.systems.length} systems); ITU-R BS.1534-3 allows at most ${MAX_STIMULI} per page: list at most ${MAX_STIMULI - 1 - s.anchors.length} systems (or split them over studies)`,
      });
    }
  });
export type MushraSettings = z.infer<typeof MushraSettings>;

/**
 * One MUSHRA page as a listener sees it: the open reference (labelled, played at will, not rated)
 * and the rated stimuli in this listener's order; a score is sent for each, in that order.
 */
export const MushraTrial = z.object({
  position: z.number().int().nonnegative(),
  kind: z.literal('mushra'),
  practice: z.boolean(),
  reference: TrialClip,
  stimuli: z.array(TrialClip).min(2).max(MAX_STIMULI),
});
export type MushraTrial = z.infer<typeof MushraTrial>;

/** The answer a MUSHRA vote carries: one score 0–100 per rated stimulus, in screen order. */
export const MushraAnswer = z.object({ scores: z.array(z.number().int().min(0).max(100)).min(2).max(MAX_STIMULI) });
export type MushraAnswer = z.infer<typeof MushraAnswer>;

/** The stored answer document: the screen order (slots, as the assignment's slot order) and each slot's score. */
export const MushraStored = z.object({ order: z.array(z.string()), scores: z.record(z.string(), z.number().int().min(0).max(100)) }).strict();
export type MushraStored = z.infer<typeof MushraStored>;

/** An utterance heard on a page: its reference rendition, anchors and the systems' renditions. */
export const MushraUtterance = z.object({ utterance: UtteranceId }).strict();

/**
 * A MUSHRA study's item config: the utterances, listed or sampled (those the reference and every
 * system have a rendition of); the training pages (BS.1534-3 §5.2: mandatory, at least one, not
 * scored). There are no attention checks: the post-screening (rule `mushra`) is BS.1534-3's.
 */
export const MUSHRA_ITEM_CONFIG = {
  items: z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('explicit'), list: z.array(MushraUtterance).min(1) }).strict(),
    z.object({ mode: z.literal('sample'), count: z.number().int().positive(), utterances: UtteranceFilter.optional() }).strict(),
  ]),
  attentionChecks: z.never({ error: 'a MUSHRA study has no attention checks: BS.1534-3 screens listeners after the test instead (rule mushra; trial.excludeMushraScreening: false turns it off)' }).optional(),
  practice: z.array(MushraUtterance).min(1, 'BS.1534-3 makes training mandatory: list at least one utterance for a training page (practice: [{ utterance: <id> }])'),
};
