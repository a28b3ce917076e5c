/**
 * Slack Web API error codes that no retry can fix: the token, its scopes, the channel or the
 * request itself is wrong, and only a person changing configuration helps. Every other failure
 * (`ratelimited`, `internal_error`, `fatal_error`, `service_unavailable`, `request_timeout`,
 * codes added later, network errors, HTTP 5xx and 429) is retried with backoff.
 */
export const NON_RETRYABLE_SLACK_ERRORS: ReadonlySet<string> = new Set([
  // the token
  'not_authed', 'invalid_auth', 'account_inactive', 'token_revoked', 'token_expired', 'no_permission',
  'missing_scope', 'not_allowed_token_type', 'org_login_required', 'ekm_access_denied', 'access_denied',
  'team_access_not_granted', 'team_added_to_org', 'enterprise_is_restricted',
  // the channel or message
  'channel_not_found', 'not_in_channel', 'is_archived', 'message_not_found', 'cant_update_message',
  'edit_window_closed', 'restricted_action', 'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel', 'restricted_action_non_threadable_channel',
  // the request
  'invalid_blocks', 'invalid_blocks_format', 'msg_too_long', 'no_text', 'too_many_attachments',
  'invalid_arguments', 'invalid_arg_name', 'invalid_array_arg', 'invalid_charset', 'invalid_form_data',
  'invalid_post_type', 'missing_post_type', 'invalid_json', 'json_not_object', 'unknown_method',
  'method_deprecated', 'deprecated_endpoint',
]);

/** What to do next, for the errors an operator is likely to meet first. */
const HINTS: Record<string, string> = {
  not_authed: 'set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…)',
  invalid_auth: 'SLACK_BOT_TOKEN is not a valid token: copy the Bot User OAuth Token (api.slack.com/apps → your app → OAuth & Permissions)',
  token_revoked: 'the app was uninstalled or its token revoked: reinstall it and update SLACK_BOT_TOKEN',
  missing_scope: 'add the chat:write bot scope (OAuth & Permissions) and reinstall the app',
  channel_not_found: 'check the approval channel id (a private channel also needs the app invited)',
  not_in_channel: 'invite the app to the channel (`/invite @your-app` in that channel)',
  is_archived: 'the approval channel is archived: unarchive it or configure another',
  ratelimited: 'Slack is rate limiting this app; it was retried and still refused',
  network_error: 'Slack could not be reached: check SLACK_API_URL and outbound network access',
  timeout: 'Slack did not answer in time',
};

/** A Slack Web API call that failed for good; `code` is Slack's error code (e.g. `channel_not_found`). */
export class SlackApiError extends Error {
  readonly code: string;
  readonly method: string;
  readonly status: number | undefined;
  readonly attempts: number;

  constructor(method: string, code: string, details: { status?: number; attempts: number; detail?: string }) {
    const hint = HINTS[code] ? `: ${HINTS[code]}` : '';
    const detail = details.detail ? ` (${details.detail})` : '';
    super(`Slack ${method} failed with ${code}${detail} after ${details.attempts} attempt${details.attempts === 1 ? '' : 's'}${hint}`);
    this.name = 'SlackApiError';
    this.code = code;
    this.method = method;
    this.status = details.status;
    this.attempts = details.attempts;
  }
}
