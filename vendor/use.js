/**
 * Preloaded by the test commands (`node --import ./vendor/use.js --test ...`;
 * the test runner passes the flag on to each test file's process): loads
 * Kysely from its bundle (vendor/build.ts), as src/main.js does for the
 * server, so that each test process reads the bundle's few files instead of
 * the package's 257 modules (about 0.3 s of CPU less per test file on the
 * 2-core development machine). Without a usable bundle the package loads as
 * usual.
 */
import { useVendorBundle } from './load.js';

useVendorBundle();
