/**
 * The route handlers still running. Fastify's close ends once every
 * connection has closed, but a handler whose client went away keeps running
 * after its connection is gone: the server's close waits for those
 * (`settled`) before it closes the database and the event system under
 * them, so a request received whole is carried out (or refused) whole, and
 * nothing fails on a closed store.
 */
import type { FastifyInstance } from 'fastify';

export class RunningHandlers {
  private count = 0;
  private waiters: Array<() => void> = [];

  /** Counts every route's handler from here on (an onRoute hook: add it before the routes). */
  install(app: FastifyInstance): void {
    const running = this;
    app.addHook('onRoute', (route) => {
      const handler = route.handler;
      route.handler = function (this: FastifyInstance, req, reply) {
        const result = handler.call(this, req, reply);
        // Async handlers; one that answers through `reply` and returns it is done when it returns.
        if (result instanceof Promise) {
          running.count++;
          result.then(running.done, running.done);
        }
        return result;
      };
    });
  }

  private readonly done = (): void => {
    if (--this.count === 0) for (const wake of this.waiters.splice(0)) wake();
  };

  /** Settles with true once no handler runs, or with false after `ms`. */
  settled(ms: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve(false);
      }, ms);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(wake);
    });
  }

  get size(): number {
    return this.count;
  }
}
