import { seededRandom, type Random } from '../../analysis/random';

/**
 * A seeded simulated A/B listener (the `ab` kind, docs/analysis-spec.md §6): what the simulator,
 * the bench and the crash test answer an A/B trial with. It sees a trial as a listener does —
 * "A" (the first stimulus offered) and "B", and whether the study offers a tie — plus, where the
 * caller knows the truth, the strength gap d = θ_A − θ_B (Bradley–Terry log-strengths of the two
 * renditions' systems; 0 for a blind caller such as the crash test, which knows no systems) and,
 * for an attention check, the right side.
 *
 * An attentive listener, on an ordinary trial:
 *   - when ties are offered, says `tie` with probability tieRate · (1 − |2σ(d) − 1|): most often
 *     between systems that sound alike, never when one is certain to win;
 *   - otherwise picks A with probability σ(d + positionBias) (A is offered, and heard, first).
 * On an attention check (one side clearly degraded) it picks the right side with probability
 * `accuracy`, else the other side. A careless listener picks uniformly among the answers offered
 * (A, B and, if offered, tie), attention checks included — unless `passesChecks`, the careless
 * listener the checks miss, who answers them as an attentive one does.
 * Every answer draws from `random` in the same order for the same trials, so a seed reproduces a
 * listener exactly.
 */
export type AbAnswer = 'A' | 'B' | 'tie';

export interface AbRespondentOptions {
  careless?: boolean;
  /** a careless listener who answers the attention checks as an attentive one does */
  passesChecks?: boolean;
  /** the largest chance of a tie, between equally strong systems (default 0.15) */
  tieRate?: number;
  /** logit in favour of A, the side offered first (default 0.2) */
  positionBias?: number;
  /** chance of the right side on an attention check (default 0.97) */
  accuracy?: number;
}

/** An A/B trial as the respondent sees it. */
export interface AbTrialView {
  /** the study offers "no preference" */
  tie: boolean;
  /** θ_A − θ_B where the caller knows the truth (default 0) */
  gap?: number;
  /** the right side of an attention check; absent on an ordinary trial */
  expected?: 'A' | 'B';
}

export type AbRespondent = (trial: AbTrialView) => AbAnswer;

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** A listener drawing from `random` (a generator the caller shares) or from its own generator seeded with a number. */
export function abRespondent(random: Random | number, o: AbRespondentOptions = {}): AbRespondent {
  const next = typeof random === 'number' ? seededRandom(random) : random;
  const tieRate = o.tieRate ?? 0.15;
  const positionBias = o.positionBias ?? 0.2;
  const accuracy = o.accuracy ?? 0.97;
  if (!(tieRate >= 0 && tieRate <= 1)) throw new RangeError(`tieRate must lie in [0, 1], got ${tieRate}`);
  return (trial) => {
    if (o.careless && !(trial.expected && o.passesChecks)) {
      const answers: AbAnswer[] = trial.tie ? ['A', 'B', 'tie'] : ['A', 'B'];
      return answers[Math.floor(next() * answers.length)];
    }
    if (trial.expected) {
      const right = next() < accuracy;
      return right === (trial.expected === 'A') ? 'A' : 'B';
    }
    const p = sigmoid(trial.gap ?? 0);
    if (trial.tie && next() < tieRate * (1 - Math.abs(2 * p - 1))) return 'tie';
    return next() < sigmoid((trial.gap ?? 0) + positionBias) ? 'A' : 'B';
  };
}

/** A screen answer in the item's terms: `first` is the side (a or b) offered as "A". */
export function chosenSide(answer: AbAnswer, first: 'a' | 'b'): 'a' | 'b' | 'tie' {
  if (answer === 'tie') return 'tie';
  return (answer === 'A') === (first === 'a') ? 'a' : 'b';
}
