/**
 * Operations of Zulip's API that Parley does not serve, because each needs a
 * service Parley does not have. `npm run routes` lists them in docs/API.md;
 * a test checks that none of them is also a route. Requests to them get the
 * usual JSON 404.
 */
export interface NotProvided {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** As Zulip's documentation writes it, under /api/v1. */
  path: string;
  /** Zulip's operation ID (its documentation page). */
  operation: string;
  reason: string;
}

const DEV_ONLY = 'Zulip serves it on development servers only (logins without a password); a production server never does.';
const CALLS = ' Without it the provider is not offered: `video_chat_provider` accepts only none and Jitsi Meet, so clients never call this.';
const PUSH = 'Needs a mobile push notification service (Zulip\'s push bouncer or APNs/FCM credentials); Parley has none, so it reports push notifications as disabled.';

export const NOT_PROVIDED: NotProvided[] = [
  { method: 'POST', path: '/dev_fetch_api_key', operation: 'dev-fetch-api-key', reason: DEV_ONLY },
  { method: 'GET', path: '/dev_list_users', operation: 'dev-list-users', reason: DEV_ONLY },
  {
    method: 'POST',
    path: '/jwt/fetch_api_key',
    operation: 'jwt-fetch-api-key',
    reason: 'Needs JWT authentication configured with a shared signing key; Parley authenticates with passwords and API keys only.',
  },
  { method: 'POST', path: '/mobile_push/test_notification', operation: 'test-notify', reason: PUSH },
  { method: 'POST', path: '/mobile_push/e2ee/test_notification', operation: 'e2ee-test-notify', reason: PUSH },
  {
    method: 'POST',
    path: '/remotes/push/e2ee/register',
    operation: 'register-remote-push-device',
    reason: 'An endpoint of the push notification bouncer itself, called by other servers; Parley is not a bouncer.',
  },
  { method: 'GET', path: '/calls/bigbluebutton/create', operation: 'create-big-blue-button-video-call', reason: 'Needs a BigBlueButton server and its shared secret.' + CALLS },
  { method: 'POST', path: '/calls/constructorgroups/create', operation: 'create-constructor-groups-video-call', reason: 'Needs a Constructor Groups account and its API key.' + CALLS },
  { method: 'POST', path: '/calls/nextcloud_talk/create', operation: 'create-nextcloud-talk-video-call', reason: 'Needs a Nextcloud server and its credentials.' + CALLS },
  { method: 'POST', path: '/calls/webex/create', operation: 'create-webex-video-call', reason: 'Needs a Webex integration (OAuth client) configured on the server.' + CALLS },
];

/** Endpoints served outside the route declarations (own handlers in src/http). */
export const OTHER_ENDPOINTS: Array<{ methods: string; path: string; summary: string }> = [
  { methods: 'GET', path: '/api/v1/user_uploads/{realm_id_str}/{filename}', summary: 'Get a temporary URL for an uploaded file (src/http/uploads.ts)' },
  {
    methods: 'OPTIONS, POST, HEAD, PATCH, DELETE',
    path: '/api/v1/tus, /api/v1/tus/{upload_id}',
    summary: 'Resumable uploads (the tus 1.0 protocol): HTTP Basic or the web session; the final PATCH answers `{"url", "filename"}` (src/http/tus.ts)',
  },
  { methods: 'GET', path: '/user_uploads/{realm_id_str}/{filename}', summary: 'An uploaded file itself (HTTP Basic or the web session)' },
  {
    methods: 'GET',
    path: '/user_uploads/thumbnail/{realm_id_str}/{filename}/{format}',
    summary: "An uploaded image's thumbnail in one of `server_thumbnail_formats` (else the closest one made); readable as the image is",
  },
  { methods: 'POST', path: '/api/v1/external/{integration}', summary: 'Incoming webhooks (src/http/webhooks.ts)' },
];
