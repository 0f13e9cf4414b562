/** A progress line on stderr with files/s and ETA; silent unless stderr is a terminal or asked for. */
export class Progress {
  private done = 0;
  private readonly started = performance.now();
  private lastDraw = 0;
  private readonly tty: boolean;

  constructor(
    private readonly total: number,
    private readonly enabled: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean(stream.isTTY);
  }

  tick(): void {
    this.done++;
    if (!this.enabled) return;
    const now = performance.now();
    // Terminals redraw often; logs get a line every few seconds so they stay readable.
    if (now - this.lastDraw < (this.tty ? 100 : 5000) && this.done < this.total) return;
    this.lastDraw = now;
    this.draw(now);
  }

  finish(): void {
    if (this.enabled && this.tty && this.done > 0) this.stream.write('\n');
  }

  private draw(now: number): void {
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const eta = rate > 0 ? Math.ceil((this.total - this.done) / rate) : 0;
    const width = 24;
    const filled = Math.round((this.done / Math.max(1, this.total)) * width);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${this.total} files  ${rate.toFixed(1)} files/s  ETA ${eta} s`;
    this.stream.write(this.tty ? `\r${line}` : `${line}\n`);
  }
}
