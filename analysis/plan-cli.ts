import { z } from 'zod';
import { commandLine, runCommand, UsageError } from '../cli/args';
import { BundleError } from './bundle';
import { BundleZipError, readBundleOrZip } from './bundle-zip';
import { parseTarget, planStudy, PlanError } from './planner/plan';
import { PilotTooSmallError } from './planner/pair-model';

const USAGE = `usage: npm run plan -- <pilot bundle-dir | bundle.zip> --target bt-ci=0.3|mos-ci=0.1 [--design itemsPerListener=20] [--seed 1] [--replicates 20] [--max-listeners 10000] [--json]
Predicts the listeners and votes a study needs for the target mean 95 % interval half-width, by seeded
simulation from the pilot's fitted model (docs/planner.md).`;

const flags = z.object({
  target: z.string({ error: 'is required, e.g. --target bt-ci=0.3' }),
  design: z.string().regex(/^itemsPerListener=\d+$/, 'must be itemsPerListener=<count>').optional(),
  seed: z.coerce.number().int().min(0).default(1),
  replicates: z.coerce.number().int().min(2).default(20),
  'max-listeners': z.coerce.number().int().min(2).default(10_000),
  json: z.boolean().default(false),
}).strict();

async function main(): Promise<number> {
  const { values, positionals } = commandLine(process.argv.slice(2), {
    target: { type: 'string' }, design: { type: 'string' }, seed: { type: 'string' }, replicates: { type: 'string' },
    'max-listeners': { type: 'string' }, json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'the pilot bundle is required' : `unexpected argument ${positionals[1]}`);
  const parsed = flags.safeParse(values);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`--${issue.path.join('.')}: ${issue.message}`);
    return 2;
  }
  const f = parsed.data;
  try {
    const target = parseTarget(f.target);
    const bundle = await readBundleOrZip(positionals[0], {});
    const itemsPerListener = f.design ? Number(f.design.split('=')[1]) : undefined;
    const plan = planStudy(bundle, target, { seed: f.seed, replicates: f.replicates, maxListeners: f['max-listeners'], design: { itemsPerListener } });
    if (f.json) console.log(JSON.stringify(plan, null, 2));
    else {
      console.log(`${plan.listeners} listeners, ${plan.votes} votes (${plan.itemsPerListener} per listener, plus ${plan.model.checksPerListener} attention checks each)`);
      console.log(`predicted mean ${target.statistic} half-width ${plan.predictedWidth.toFixed(4)} ± ${plan.widthSpread.toFixed(4)} (target ${target.width})`);
      console.log(`interval: ${plan.interval}`);
      const m = plan.model;
      const shape = 'positionBias' in m ? `position bias ${m.positionBias.toFixed(3)}` : `listener bias SD ${m.listenerBias.toFixed(3)}, residual SD ${m.residual.toFixed(3)}`;
      console.log(`pilot model: ${m.systems.length} systems, ${shape}, careless share ${m.careless.toFixed(3)}`);
    }
    return 0;
  } catch (e) {
    if (e instanceof PlanError || e instanceof PilotTooSmallError || e instanceof BundleError || e instanceof BundleZipError) {
      console.error(e.message);
      return 1;
    }
    throw e;
  }
}

runCommand(USAGE, main).catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
