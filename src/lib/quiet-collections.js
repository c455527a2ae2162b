/**
 * When the server asks V8 for a collection of its own (src/main.js, see
 * IDLE_CHECK_MS and BUSY_COLLECTIONS there). Plain JavaScript, as src/main.js
 * is: it is loaded before any TypeScript.
 *
 * Every interval the server calls `tick()`. Once the process has gone quiet
 * (no collection of V8's own in the last interval) after some (at least one
 * since the last request), it asks for one collection: a young-generation
 * one, which lets V8's memory reducer see the quiet; or, when at least
 * `busy` collections ran since the last request, a full one that gives
 * memory back. Then nothing more until V8 collects on its own again.
 */
export class QuietCollections {
  /** Collections of V8's own in the current interval. */
  #lately = 0;
  /** Collections of V8's own since the last request. */
  #sinceAsked = 0;
  /** Collections since the last request that make a busy spell. */
  #busy;

  /** @param {number} busy */
  constructor(busy) {
    this.#busy = busy;
  }

  /** V8 ran a collection (not one the server asked for). */
  collected() {
    this.#lately++;
    this.#sinceAsked++;
  }

  /**
   * Called every interval: the collection to ask for now, if any.
   * @returns {'minor' | 'full' | null}
   */
  tick() {
    const quiet = this.#lately === 0;
    this.#lately = 0;
    if (!quiet || this.#sinceAsked === 0) return null;
    const busy = this.#sinceAsked >= this.#busy;
    this.#sinceAsked = 0;
    return busy ? 'full' : 'minor';
  }
}
