/**
 * The trial kinds the analysis reads through their own answers file (analysis/kinds/types.ts),
 * each declared once in its folder (trials/<kind>/report.ts). The core kinds — pair and ab
 * (votes.csv, §3) and rating (ratings.csv, §4) — are read by the bundle reader itself.
 * A new kind is one entry here (and its HTML section in sections.tsx).
 */
import type { AnalysisKind } from './types';
import { abxAnalysis } from '../../trials/abx/report';
import { ccrAnalysis } from '../../trials/ccr/report';
import { tagsAnalysis } from '../../trials/tags/report';
import { mushraAnalysis } from '../../trials/mushra/report';
import { describeAnalysis } from '../../trials/describe/report';

// `any`: each kind has its own row and section types.
export const ANALYSIS_KINDS: readonly AnalysisKind<any, any>[] = [abxAnalysis, ccrAnalysis, tagsAnalysis, mushraAnalysis, describeAnalysis];

/** The registered kind of that items.csv `kind`, or undefined (read when asked: a test may register one of its own). */
export function analysisKind(kind: string | undefined): AnalysisKind<any, any> | undefined {
  return kind === undefined ? undefined : ANALYSIS_KINDS.find((k) => k.kind === kind);
}
