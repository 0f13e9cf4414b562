/**
 * Per value of a `multi` attribute (analysis-spec §5.5): its prevalence and the agreement on
 * whether an answer contains it.
 *
 * prevalence(v) = (answers whose set contains v) / (all answers), over every answer given
 *   (units with a single answer included);
 * alpha(v) = Krippendorff's nominal α of the binary labels "contains v" (1) / "does not" (0), one
 *   per answer, units = items (krippendorff-alpha.ts; units with < 2 answers drop out).
 * Source: the binary per-category reliability Krippendorff (2011) describes for multi-valued
 * coding ("one variable per category"), as in Passonneau (2006) §4.
 * Edge cases: no answers → prevalence null; a value every pairable answer contains, or none does
 * (no expected disagreement) → alpha null.
 */
import { krippendorffAlphaNominal } from './krippendorff-alpha';

export interface ValueAgreement {
  value: string;
  prevalence: number | null;
  alpha: number | null;
}

export function perValueAlpha(units: ReadonlyArray<ReadonlyArray<ReadonlySet<string>>>, values: readonly string[]): ValueAgreement[] {
  const answers = units.reduce((s, u) => s + u.length, 0);
  return values.map((value) => {
    let containing = 0;
    const counts = units.map((unit) => {
      const yes = unit.filter((answer) => answer.has(value)).length;
      containing += yes;
      return [unit.length - yes, yes];
    });
    return { value, prevalence: answers === 0 ? null : containing / answers, alpha: krippendorffAlphaNominal(counts) };
  });
}
