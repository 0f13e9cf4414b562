/** The audio manifest's public functions, used by the CLI, the study loader and the server. */
export { importClips, clipFile, clipPeaks, listClips, showClip } from './clips';
export type { ClipCandidate, ClipFile, ClipListing, Labels } from './clips';
export { analyseAudio, AudioError } from './decode';
export type { AudioFacts, Peaks } from './decode';
export { clipId, installationSecret } from './ids';
export { importRavdess, parseRavdessName, RAVDESS_STATEMENTS } from './ravdess';
export type { RavdessLabels } from './ravdess';
export { importVctk, parseSpeakerInfo } from './vctk';
export { importMetasetFile, metasetUtteranceId, CAPTION_TASKS } from './metaset';
export { importJudgeFile, judgeIdentityFromName } from './judge';
export { importVoxreasonFile, describePlan, counterfactualSystem, PLAN_TASK, GOLD_SYSTEM } from './voxreason';
export { importDemo } from './demo';
export { verifyClips } from './verify';
export { ImportReport } from './report';
export type { Failure } from './report';
