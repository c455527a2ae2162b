/**
 * A periodic background job: `pass` runs every `intervalMs` and once at start,
 * never two at a time (a tick while a pass runs is skipped); failures are
 * logged; the timer never keeps the process alive. `stop()` waits for a
 * running pass.
 */
export function startPeriodicJob(
  log: { error(obj: object, msg: string): void },
  what: string,
  intervalMs: number,
  pass: () => Promise<unknown>,
): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const tick = (): void => {
    if (running || stopped) return;
    running = pass()
      .catch((e: unknown) => log.error({ err: e }, `${what} failed`))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
