/** URL paths of the static files the server itself serves (advertised in /register). */
export const EMOJI_DATA_PATH = '/static/generated/emoji/emoji_api.json';
export const LOGO_PATH = '/static/images/logo/parley-logo.svg';
/** The picture of a user the viewer may not access (Zulip's unknown-user avatar). */
export const UNKNOWN_USER_AVATAR_PATH = '/static/images/unknown-user-avatar.png';
/** The image of the :zulip: emoji (reaction type zulip_extra_emoji), at the path Zulip clients load it from. */
export const ZULIP_EMOJI_PATH = '/static/generated/emoji/images/emoji/unicode/zulip.png';
/** The path prefix of uploaded files (the rendered links point at `/user_uploads/<realm_id>/...`). */
export const UPLOADS_PATH_PREFIX = '/user_uploads/';
