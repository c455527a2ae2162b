/**
 * A background pass run every `intervalMs` (and at start, and whenever woken):
 * one pass at a time, errors logged, `stop()` waits for a running pass.
 * The pass itself must be safe to run on several servers at once (claim rows
 * atomically); this only drives it.
 */
export interface Periodic {
  /** Runs a pass soon (after the current one, if one is running). */
  wake(): void;
  stop(): Promise<void>;
}

export function startPeriodic(log: { error(obj: unknown, msg: string): void }, name: string, pass: () => Promise<unknown>, intervalMs: number): Periodic {
  let running: Promise<unknown> | null = null;
  let again = false;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((e: unknown) => log.error({ err: e }, `${name} pass failed`))
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          setImmediate(tick);
        }
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    wake: () => setImmediate(tick),
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}

/** The same driver with the job's interval before its pass (the form the retention and scheduled-delivery jobs use). */
export function startPeriodicJob(log: { error(obj: unknown, msg: string): void }, what: string, intervalMs: number, pass: () => Promise<unknown>): Periodic {
  return startPeriodic(log, what, pass, intervalMs);
}
