/**
 * methods.md of the paper bundle: what the standards ask a paper to report (BS.1534-3: design,
 * every removed listener with the reason; P.800.2: what accompanies a MOS; Kirkland et al. 2023:
 * scale labels, increment and the exact instruction wording), from the bundle and its study.json.
 * Whatever study.json does not record is said to be missing, never guessed.
 */
import { isRatingItem, isVoteItem, itemKind, type Bundle } from '../bundle';
import { ANALYSIS_KINDS } from '../kinds/index';
import type { Report } from '../report';
import type { AnalysisSettings, ReportHeader } from '../study-settings';

export interface MethodsInput {
  bundle: Bundle;
  report: Report;
  header: ReportHeader;
  settings: AnalysisSettings;
  options: { buckets: number; btPrior: number; bootstrap: { n: number; seed: number } | null };
  figures: readonly string[];
  citations: readonly string[];
}

const NOT_RECORDED = '_Not recorded in study.json._';

/** A text quoted as it is: a fenced block whose fence no line of the text can close. */
function verbatim(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text.replace(/\n+$/, '')}\n${fence}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function designLines({ bundle, report }: MethodsInput): string[] {
  const kinds = new Map<string, { items: number; attention: number }>();
  const systems = new Set<string>();
  for (const item of bundle.items) {
    const kind = itemKind(item);
    const k = kinds.get(kind) ?? { items: 0, attention: 0 };
    if (item.attention) k.attention++;
    else {
      k.items++;
      if (isVoteItem(item) || isRatingItem(item)) {
        if (item.system_a) systems.add(item.system_a);
        if (item.system_b) systems.add(item.system_b);
      }
    }
    kinds.set(kind, k);
  }
  const lines = [...kinds].map(([kind, k]) => `- Trials of kind \`${kind}\`: ${plural(k.items, 'item')} and ${plural(k.attention, 'attention check')}.`);
  if (systems.size) lines.push(`- Systems compared (${systems.size}): ${[...systems].map((s) => `\`${s}\``).join(', ')}.`);
  if (bundle.study?.orientation) lines.push(`- Orientation of each pair (which side is a): ${bundle.study.orientation}.`);
  if (report.reliability.ties) lines.push('- Listeners could answer "no preference"; those answers are counted, and left out of every statistic of the votes.');
  lines.push(`- Judges whose scores are compared: ${report.judges.length ? report.judges.map((j) => `\`${j.judge}\``).join(', ') : 'none'}.`);
  return lines;
}

function listenerLines({ report, header }: MethodsInput): string[] {
  const l = report.listeners;
  const lines = [
    `- Recruited: ${l.total}. Retained: ${l.retained}. Excluded: ${l.excluded.length}.`,
    `- Attention-check pass rate over all listeners: ${l.attention_pass_rate === null ? 'no attention checks answered' : `${(100 * l.attention_pass_rate).toFixed(1)}%`}.`,
    '- Exclusion rules in force (a listener failing any is excluded):',
    ...header.rules.map((r) => `  - \`${r.reason}\`: ${r.description}`),
  ];
  const notRun = Object.entries(l.not_run_by_reason);
  if (notRun.length) lines.push(`- Rules that could not be run for some listeners (facts missing from the bundle): ${notRun.map(([r, n]) => `\`${r}\` ${n}`).join(', ')}.`);
  if (l.excluded.length) {
    lines.push('', '| listener | reasons |', '|---|---|');
    for (const e of l.excluded) lines.push(`| \`${e.listener_id}\` | ${e.reasons.map((r) => `\`${r}\``).join(', ')} |`);
  }
  return lines;
}

function scaleLines({ bundle, report }: MethodsInput): string[] {
  const m = bundle.study?.methods;
  const lines: string[] = [];
  if (report.items?.length) lines.push(`- Pair trials: a forced choice between the two${report.reliability.ties ? ', or "no preference"' : ''}.`);
  if (report.ratings) lines.push(`- Ratings on the integer scale ${report.ratings.scale ? `${report.ratings.scale[0]}–${report.ratings.scale[1]}` : '(not given; the observed range is used)'}.`);
  if (m?.scale) {
    lines.push('- Scale labels as shown:', ...m.scale.labels.map((x) => `  - ${x.value}: ${x.label}`));
    if (m.scale.increment !== undefined) lines.push(`- Increment: ${m.scale.increment}.`);
  } else if (report.ratings) lines.push(`- Scale labels: ${NOT_RECORDED}`);
  return lines;
}

function analysisLines({ settings, options, report }: MethodsInput, cite: (key: string) => string): string[] {
  const lines = [
    `- Attention threshold: ≥ ${settings.minAttention} of the checks right; split threshold (majority share below which an item is split): ${settings.splitThreshold}.`,
  ];
  if (report.items?.length) {
    lines.push(
      `- Reliability: Krippendorff's α (nominal) ${cite('krippendorff2004')}, Fleiss' κ ${cite('fleiss1971')}, Brennan–Prediger κ ${cite('brennan1981')}, mean pairwise agreement.`,
      `- Coding of α and κ: ${report.reliability.coding}.`,
    );
    if (report.judges.length) {
      lines.push(
        `- Judge agreement with the human majority with 95% Wilson intervals ${cite('wilson1927')}, Cohen's κ ${cite('cohen1960')} and an exact binomial test against 50%; items where the judge scores both sides the same (Δ = 0) are left out.`,
        `- Agreement by |Δ| in ${options.buckets} equal-width buckets over the observed range; calibration by a logistic regression on the individual votes.`,
        `- Rank correlation of the Bradley–Terry ranking with each judge's: Spearman's ρ ${cite('spearman1904')} and Kendall's τ_b ${cite('kendall1938')} ${cite('kendall1945')}.`,
      );
    }
    lines.push(`- Bradley–Terry ${cite('bradley1952')} fit to the votes alone, ${options.btPrior > 0 ? `MAP with a ridge prior λ = ${options.btPrior}` : 'by maximum likelihood'}; 95% Wald intervals.`);
  }
  if (report.ratings) lines.push(`- MOS per system with 95% t-intervals ${cite('itu-p800')}; Krippendorff's α (interval and ordinal) ${cite('krippendorff2004')}.`);
  if (options.bootstrap) lines.push(`- Listener bootstrap: ${options.bootstrap.n} resamples, seed ${options.bootstrap.seed}${report.bootstrap ? `, bias-corrected percentile intervals ${cite('efron1987')}` : ''}.`);
  const sections = report as unknown as Record<string, unknown>;
  for (const kind of ANALYSIS_KINDS) if (sections[kind.section] !== undefined) lines.push(`- The \`${kind.kind}\` trials are analysed by their kind's own section (\`${kind.section}\`).`);
  return lines;
}

function planLines({ header }: MethodsInput): string[] {
  const plan = header.plan;
  if (!plan) return ['_No frozen analysis plan in study.json._'];
  return [
    `- Frozen ${plan.frozenAt}, hash \`${plan.hash}\` (the SHA-256 of its settings' canonical JSON; a bundle whose hash does not match is refused).`,
    plan.changes.length ? `- Changes recorded after the first vote (${plan.changes.length}):` : '- No change recorded after the first vote.',
    ...plan.changes.map((c) => `  - ${c.at}: ${c.changed.join('; ')}; reason: ${c.reason}`),
    plan.deviations.length ? `- This analysis departs from it: ${plan.deviations.join('; ')}.` : '- This analysis follows it.',
  ];
}

export function paperMethods(input: MethodsInput): string {
  const { bundle, header, figures, citations } = input;
  const m = bundle.study?.methods;
  const cite = (key: string) => (citations.includes(key) ? `[@${key}]` : '');
  const heading = header.title ? `${header.title} (${header.study ?? 'no study id'})` : (header.study ?? 'a study without study.json');
  const loudness = m?.loudness ? Object.entries(m.loudness).map(([k, v]) => `- ${k}: ${String(v)}`) : [NOT_RECORDED];
  const sections: [string, string[]][] = [
    ['Design', [...(m?.design ? [m.design, ''] : []), ...designLines(input)]],
    ['Listeners', listenerLines(input)],
    ['Answer scale', scaleLines(input)],
    ['Instructions (verbatim)', [m?.instructions !== undefined ? verbatim(m.instructions) : NOT_RECORDED]],
    ['Question on every trial (verbatim)', [m?.question !== undefined ? verbatim(m.question) : NOT_RECORDED]],
    ['Screening', [m?.screening ? `- Headphone screening: \`${m.screening.kind}\`${m.screening.required === true ? ', passing required to continue' : m.screening.required === false ? ', not required to continue' : ''}.` : NOT_RECORDED,
      ...(header.rules.some((r) => r.reason === 'screening') ? ['- Listeners who failed it are excluded from the analysis.'] : [])]],
    ['Loudness and the served copies', [...loudness, ...(m?.processing ? ['', m.processing] : [])]],
    ['Analysis plan', planLines(input)],
    ['Analysis', analysisLines(input, cite)],
    ['Figures', figures.length ? figures.map((f) => `- \`figures/${f}\``) : ['None.']],
  ];
  return [
    `# Methods: ${heading}`,
    '',
    `Data exported ${header.exportedAt ?? '(export time not recorded)'}. Numbers: tables.tex (rounded) and numbers.json (unrounded); references: paper.bib.`,
    ...sections.flatMap(([title, lines]) => ['', `## ${title}`, '', ...lines]),
    '',
  ].join('\n');
}
