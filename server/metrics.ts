/**
 * The server's metrics in Prometheus' text exposition format (version 0.0.4), served by /metrics
 * (server/plugins/ops.ts). A few counters and histograms kept in memory, no dependency: what an
 * operator graphs and alerts on — request latency by route, votes acknowledged and refused (by
 * reason), group-commit batches, the WAL, the event loop, live-report computations.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

type Labels = Record<string, string>;

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelText = (labels: Labels) => {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
};
const header = (name: string, help: string, type: string) => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, private readonly help: string) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [...this.values.values()].map((e) => `${this.name}${labelText(e.labels)} ${e.value}\n`);
    return header(this.name, this.help, 'counter') + (lines.length ? lines.join('') : `${this.name} 0\n`);
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, private readonly help: string, private readonly buckets: readonly number[]) {}

  observe(value: number, labels: Labels = {}): void {
    this.observer(labels)(value);
  }

  /**
   * Observes values under one set of labels, written out once: for what observes the same labels
   * on every request (their text is the series' key, three replaces per label value).
   */
  observer(labels: Labels): (value: number) => void {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    const series = s;
    return (value) => {
      for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) series.counts[i]++;
      series.sum += value;
      series.count++;
    };
  }

  /** Runs `work` and observes how long it took, in seconds. */
  time<T>(work: () => T, labels: Labels = {}): T {
    const started = performance.now();
    try {
      return work();
    } finally {
      this.observe((performance.now() - started) / 1000, labels);
    }
  }

  count(labels: Labels = {}): number {
    return this.series.get(labelText(labels))?.count ?? 0;
  }

  render(): string {
    let text = header(this.name, this.help, 'histogram');
    for (const s of this.series.values()) {
      this.buckets.forEach((le, i) => (text += `${this.name}_bucket${labelText({ ...s.labels, le: String(le) })} ${s.counts[i]}\n`));
      text += `${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}\n`;
      text += `${this.name}_sum${labelText(s.labels)} ${s.sum}\n${this.name}_count${labelText(s.labels)} ${s.count}\n`;
    }
    return text;
  }
}

/** A value read at scrape time (WAL size, writer up, event-loop delay). */
export const gauge = (name: string, help: string, samples: Array<[Labels, number]>): string =>
  header(name, help, 'gauge') + samples.map(([labels, value]) => `${name}${labelText(labels)} ${value}\n`).join('');

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServerMetrics {
  readonly requestSeconds = new Histogram('earmark_http_request_duration_seconds', 'Time from request to response, by method, route (its pattern) and status code.', SECONDS);
  readonly votesAcknowledged = new Counter('earmark_votes_acknowledged_total', 'Votes recorded durably and acknowledged.');
  readonly votesRefused = new Counter('earmark_votes_refused_total', 'Votes that reached the vote writer and were not recorded, by reason (the API error code; commit_failed: the batch did not commit; writer_down: no writer thread).');
  readonly batchSize = new Histogram('earmark_vote_batch_votes', 'Votes per group-commit batch.', [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]);
  readonly commitSeconds = new Histogram('earmark_vote_commit_duration_seconds', 'Time for a group-commit batch from hand-over to the writer thread to its durable COMMIT and reply.', SECONDS);
  readonly writerRestarts = new Counter('earmark_vote_writer_restarts_total', 'Times the vote writer thread stopped unexpectedly and was started again.');
  /** Hook for whatever computes a live report (route or worker): counts and times each computation. */
  readonly liveReports = new Histogram('earmark_live_report_duration_seconds', 'Live figures computed in the figures thread (dashboard, reports, participants, approvals, studio plans; cached ones not counted), by figure, and their time.', SECONDS);
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.loopDelay.enable();
  }

  /** The exposition text; `gauges` adds what is read at scrape time. */
  render(gauges: string[]): string {
    const seconds = 1e-9; // the histogram records nanoseconds
    const loop = gauge('earmark_event_loop_delay_seconds', 'Event-loop delay since the last scrape (monitorEventLoopDelay), by quantile.', [
      [{ quantile: '0.5' }, this.loopDelay.percentile(50) * seconds],
      [{ quantile: '0.99' }, this.loopDelay.percentile(99) * seconds],
      [{ quantile: '1' }, this.loopDelay.max * seconds],
    ]);
    this.loopDelay.reset();
    return [this.requestSeconds, this.votesAcknowledged, this.votesRefused, this.batchSize, this.commitSeconds, this.writerRestarts, this.liveReports]
      .map((m) => m.render())
      .concat(loop, gauges)
      .join('');
  }

  close(): void {
    this.loopDelay.disable();
  }
}
