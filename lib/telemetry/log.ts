/** How telemetry reports its own trouble: the gateway's JSON-line logger has this shape (lib/dispatch/events.ts). */
export type Logger = (event: string, fields: Record<string, unknown>) => void;
