/** Types of src/lib/make-dirs.js (plain JavaScript; see there). */
export declare function makeDirs(dir: string, mode?: number): void;
