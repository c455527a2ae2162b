/** Types of src/lib/quiet-collections.js (plain JavaScript; see there). */
export declare class QuietCollections {
  constructor(busy: number);
  collected(): void;
  tick(): 'minor' | 'full' | null;
}
