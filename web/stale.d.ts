/** Types of web/stale.js (plain JavaScript, run by src/main.js before any TypeScript). */
export declare const WEB_DIR: string;
export declare function isStale(webDir?: string): boolean;
