/** RunningHandlers (src/http/running.ts): what the server's close waits for. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { RunningHandlers } from '../src/http/running.ts';

test('counts async handlers until they settle, resolved or rejected; settled() is bounded', async () => {
  const running = new RunningHandlers();
  const app = Fastify();
  running.install(app);
  const held: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  app.get('/held', () => new Promise<string>((resolve, reject) => held.push({ resolve: () => resolve('done'), reject })));
  app.get('/sync', (_req, reply) => reply.send('at once'));
  await app.ready();

  assert.equal(await running.settled(10), true);
  const first = app.inject('/held');
  const second = app.inject('/held');
  while (held.length < 2) await new Promise((r) => setImmediate(r));
  assert.equal(running.size, 2);
  assert.equal((await app.inject('/sync')).body, 'at once');
  assert.equal(running.size, 2, 'a handler answering through reply is not counted');

  const started = Date.now();
  assert.equal(await running.settled(50), false, 'gives up after its bound');
  assert.ok(Date.now() - started >= 45);
  const waiting = running.settled(5000);
  held[0]!.resolve();
  assert.equal((await first).body, 'done');
  assert.equal(running.size, 1);
  held[1]!.reject(new Error('refused'));
  assert.equal((await second).statusCode, 500);
  assert.equal(await waiting, true);
  assert.equal(running.size, 0);
  await app.close();
});
