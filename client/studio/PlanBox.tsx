import { useEffect, useState } from 'react';
import type { StudioStudy, StudyDetail, StudyPlan } from '../../contract/studio';
import { errorText, studio } from './api';

type Statistic = StudyPlan['target']['statistic'];

/** Kinds whose report ranks systems by Bradley–Terry (bt-ci); ratings have a mean score (mos-ci). */
const defaultTarget = (detail: StudyDetail): { statistic: Statistic; width: string } =>
  detail.itemsByKind.rating > 0 ? { statistic: 'mos-ci', width: '0.1' } : { statistic: 'bt-ci', width: '0.3' };

/**
 * How many listeners to pay for: the planner (docs/planner.md) fits a pilot study on this server
 * (its votes so far) and simulates studies of growing size until the report's mean 95 % interval
 * half-width reaches the target — the same plan `npm run plan` gives on the pilot's export.
 */
export function PlanBox({ detail }: { detail: StudyDetail }) {
  const [pilots, setPilots] = useState<StudioStudy[] | null>(null);
  const [pilot, setPilot] = useState('');
  const initial = defaultTarget(detail);
  const [statistic, setStatistic] = useState<Statistic>(initial.statistic);
  const [width, setWidth] = useState(initial.width);
  const [perListener, setPerListener] = useState('');
  const [plan, setPlan] = useState<StudyPlan | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    studio.list().then(({ studies }) => {
      const voted = studies.filter((s) => s.votes > 0);
      setPilots(voted);
      setPilot((p) => p || (voted.find((s) => s.id !== detail.id) ?? voted[0])?.id || '');
    }, (e) => setError(errorText(e)));
  }, [detail.id]);

  const run = async () => {
    setBusy(true);
    setError(null);
    setPlan(null);
    try {
      const items = perListener.trim() === '' ? undefined : Number(perListener);
      setPlan(await studio.plan(detail.id, { pilot, target: `${statistic}=${width.trim()}`, ...(items !== undefined && { itemsPerListener: items }) }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="plan-heading">
      <h2 id="plan-heading">Plan the number of listeners</h2>
      <p className="muted">
        From a pilot study's votes: its systems' strengths or scores, the share of careless listeners, position bias or listener bias.
        Studies of growing size are simulated until the mean 95 % interval half-width reaches the target.
      </p>
      {pilots !== null && pilots.length === 0 ? (
        <p className="callout">No study on this server has votes yet. Run a small pilot (a clone of this study, say) first, then plan from it.</p>
      ) : (
        <div className="row">
          <label>
            Pilot study
            <select value={pilot} onChange={(e) => setPilot(e.target.value)} aria-label="pilot study">
              {(pilots ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.id} ({s.votes} votes, {s.listeners} listeners)
                </option>
              ))}
            </select>
          </label>
          <label>
            Target
            <select value={statistic} onChange={(e) => setStatistic(e.target.value as Statistic)} aria-label="target statistic">
              <option value="bt-ci">Bradley–Terry half-width (pairs, A/B)</option>
              <option value="mos-ci">mean score half-width (ratings)</option>
            </select>
          </label>
          <label>
            Half-width
            <input value={width} onChange={(e) => setWidth(e.target.value)} inputMode="decimal" size={6} aria-label="target half-width" />
          </label>
          <label>
            Items per listener
            <input value={perListener} onChange={(e) => setPerListener(e.target.value)} inputMode="numeric" size={6} placeholder="as the pilot" aria-label="items per listener" />
          </label>
          <button type="button" className="primary" disabled={busy || !pilot} onClick={() => void run()}>
            {busy ? 'Planning…' : 'Plan'}
          </button>
        </div>
      )}
      {error !== null && <p className="notice" role="alert">{error}</p>}
      {plan && (
        <div data-testid="plan-result" role="status">
          <p>
            <strong>{plan.listeners} listeners</strong>, {plan.votes} votes ({plan.itemsPerListener} per listener, plus {plan.checksPerListener} attention checks each).
          </p>
          <p className="muted small">
            Predicted mean half-width {plan.predictedWidth.toFixed(3)} ± {plan.widthSpread.toFixed(3)} (target {plan.target.width}) of {plan.interval}. Pilot {plan.pilot}:{' '}
            {plan.model.systems} systems, careless share {plan.model.careless.toFixed(2)}
            {plan.model.positionBias !== null && `, position bias ${plan.model.positionBias.toFixed(2)}`}
            {plan.model.listenerBias !== null && `, listener bias SD ${plan.model.listenerBias.toFixed(2)}, residual SD ${plan.model.residual?.toFixed(2)}`}. Attentive
            listeners are assumed to pass the checks, and only the attention rule is simulated: other exclusion rules drop more.
          </p>
        </div>
      )}
    </section>
  );
}
