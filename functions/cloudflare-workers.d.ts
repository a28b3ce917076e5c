// The one Workers-only module functions/worker.ts imports (wrangler leaves it to the runtime).
declare module 'cloudflare:workers' {
  export const env: Record<string, unknown>;
}
