/** Types of vendor/load.js (plain JavaScript, run before any TypeScript). */
export interface Manifest {
  package: string;
  version: string;
  /** How it was made (BUILD in vendor/build.ts); absent in bundles made before that number. */
  build?: number;
  /** Module specifier → file in the manifest's folder. */
  modules: Record<string, string>;
}
export declare const DIST: URL;
export declare function usableManifest(dir?: URL): Manifest | null;
export declare function useVendorBundle(dir?: URL): boolean;
