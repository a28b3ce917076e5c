/** "in 59 min 12 s", "in 2 h 5 min", "expired 3 min ago": how long until (or since) `at`, for people. */
export function remainingTime(at: string, now: number): string {
  const ms = Date.parse(at) - now;
  if (Number.isNaN(ms)) return 'unknown';
  const words = duration(Math.abs(ms));
  return ms > 0 ? `in ${words}` : `${words} ago`;
}

export function duration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

/** An ISO time as "2026-05-01 14:03:09 UTC": one fixed zone, so every approver reads the same. */
export function shortTime(at: string | null | undefined): string {
  if (!at) return '—';
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? at : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Just the day ("2026-05-01", UTC), for dense tables; the full time goes in a title. */
export function shortDate(at: string | null | undefined): string {
  if (!at) return '—';
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? at : date.toISOString().slice(0, 10);
}
