/** src/actions/message-order.ts: a send's event waits for the sends with smaller IDs, never long. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageOrder } from '../src/actions/message-order.ts';

test('a send waits for the sends that began before it and got smaller IDs, not for larger ones', async () => {
  const order = new MessageOrder();
  const t0 = performance.now();
  const a = order.begin();
  const b = order.begin();
  const c = order.begin();
  order.assigned(b, 11);
  order.assigned(c, 12);
  const done: string[] = [];
  const bTurn = order.turn(b).then(() => done.push('b'));
  const cTurn = order.turn(c).then(() => done.push('c'));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(done, [], 'a has no ID yet: it may come first');
  order.assigned(a, 13);
  await bTurn;
  assert.deepEqual(done, ['b'], 'a got a larger ID: b goes; c waits for b');
  order.end(b);
  await cTurn;
  assert.deepEqual(done, ['b', 'c']);
  // a's turn comes once c, with a smaller ID, is done.
  let aGone = false;
  const aTurn = order.turn(a).then(() => (aGone = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(aGone, false);
  order.end(c);
  await aTurn;
  order.end(a);
  // A send that began after another got its ID does not hold it back.
  const d = order.begin();
  order.assigned(d, 20);
  const e = order.begin();
  order.assigned(e, 21);
  await order.turn(d);
  assert.ok(performance.now() - t0 < 500, 'no wait ran into the one-second bound');
});

test('a send that never finishes holds the later ones back for at most a second', async () => {
  const order = new MessageOrder();
  const stuck = order.begin();
  const next = order.begin();
  order.assigned(next, 5);
  const t0 = performance.now();
  await order.turn(next);
  const waited = performance.now() - t0;
  assert.ok(waited >= 900 && waited < 3000, `waited ${waited} ms`);
  order.end(next);
  order.end(stuck);
});
