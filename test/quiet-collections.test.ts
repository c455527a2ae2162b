/** src/lib/quiet-collections.js: which collection the server asks V8 for once it has gone quiet. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuietCollections } from '../src/lib/quiet-collections.js';

test('quiet after a little work: one young-generation collection, then nothing while it stays quiet', () => {
  const q = new QuietCollections(20);
  assert.equal(q.tick(), null, 'nothing before any work');
  q.collected();
  q.collected();
  assert.equal(q.tick(), null, 'not in an interval that had collections');
  assert.equal(q.tick(), 'minor');
  assert.equal(q.tick(), null);
  assert.equal(q.tick(), null);
});

test('quiet after a busy spell: a full collection that gives memory back', () => {
  const q = new QuietCollections(20);
  for (let interval = 0; interval < 4; interval++) {
    for (let i = 0; i < 6; i++) q.collected();
    assert.equal(q.tick(), null, 'busy');
  }
  assert.equal(q.tick(), 'full');
  assert.equal(q.tick(), null);
  // The full collection itself is reported as V8's: a young-generation one follows.
  q.collected();
  q.collected();
  assert.equal(q.tick(), null);
  assert.equal(q.tick(), 'minor');
  assert.equal(q.tick(), null);
});

test('the count starts again at each request: busy spells are counted from the last one', () => {
  const q = new QuietCollections(20);
  for (let i = 0; i < 19; i++) q.collected();
  assert.equal(q.tick(), null);
  assert.equal(q.tick(), 'minor', '19 collections are no busy spell');
  for (let i = 0; i < 20; i++) q.collected();
  assert.equal(q.tick(), null);
  assert.equal(q.tick(), 'full', '20 are');
});
