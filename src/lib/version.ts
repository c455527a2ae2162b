/** What the server reports about itself. */
export const FEATURE_LEVEL = 483;
export const ZULIP_VERSION = '11.0-parley-0.1.0';
export const ZULIP_MERGE_BASE = '11.0';
export const PARLEY_VERSION = '0.1.0';
