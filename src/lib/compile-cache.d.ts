/** Types of src/lib/compile-cache.js (plain JavaScript; see there). */
export declare const SRC_DIR: string;
export declare const STAMP_FILE: string;
export declare function childNodeArgs(execArgv?: readonly string[]): string[];
export declare function childNodeOptions(nodeOptions?: string): string | undefined;
export declare function sourcesFingerprint(dir?: string): string;
export declare function warmCompileCache(cacheDir: string, entry: string): void;
