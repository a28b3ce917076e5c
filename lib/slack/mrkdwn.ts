/**
 * Text helpers for Slack's mrkdwn. Slack reads `&`, `<` and `>` as control characters
 * (`<@U123>` mentions, `<!here>`, `<url|label>` links, `&amp;` entities), so text a user or a
 * model supplied is escaped: nobody can make an approval message ping a channel or hide a link.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inline code: a backtick inside would end the span, so it becomes a look-alike quote. */
export function inlineCode(text: string): string {
  return `\`${escapeMrkdwn(text.replace(/`/g, 'ˋ'))}\``;
}

/**
 * A preformatted block. `escaped` must already be escaped; a run of backticks inside is split
 * with a zero-width space so it cannot close the block early.
 */
export function codeBlock(escaped: string): string {
  return `\`\`\`\n${escaped.replace(/``/g, '`\u200b`')}\n\`\`\``;
}

/** How many characters a code block's content may grow by when codeBlock splits backtick runs. */
export function codeBlockCost(char: string): number {
  if (char === '&') return 5;
  if (char === '<' || char === '>') return 4;
  return char === '`' ? 2 : char.length;
}

/**
 * Cuts mrkdwn to at most `max` characters (UTF-16 units: never fewer than Slack counts), ending
 * with `marker`. Never splits a surrogate pair, an `&amp;`-style entity or a `<...>` token
 * (mention, date, link): a half token would show as garbage or break the message.
 */
export function truncateMrkdwn(text: string, max: number, marker = '…'): string {
  if (text.length <= max) return text;
  let cut = Math.max(0, max - marker.length);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  const amp = text.lastIndexOf('&', cut - 1);
  if (amp >= 0 && amp > cut - 5 && text.indexOf(';', amp) >= cut) cut = amp;
  const open = text.lastIndexOf('<', cut - 1);
  if (open >= 0 && text.lastIndexOf('>', cut - 1) < open) cut = open;
  return text.slice(0, cut) + marker;
}

/**
 * A time every reader sees in their own time zone (`<!date^unix^format|fallback>`), with the
 * UTC time as the fallback for clients that cannot format it. Unparsable input is shown escaped.
 */
export function slackDate(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return escapeMrkdwn(iso);
  const utc = `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time}|${utc}>`;
}
