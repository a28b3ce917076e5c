import type { Logger } from './log.ts';
import { OtlpHttpExporter, type OtlpEndpoint } from './exporter.ts';
import { samplerFromEnv, type Sampler } from './sampler.ts';
import type { Attributes } from './span.ts';
import { Tracer, type ExportSchedule } from './tracer.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface TracerFromEnvOptions {
  schedule: ExportSchedule;
  log: Logger;
  /** How exports are sent; default the runtime's fetch (the collector is the operator's, not a tenant's egress). */
  fetch?: typeof fetch;
}

const isTrue = (value: string | undefined) => (value ?? '').trim().toLowerCase() === 'true';

/**
 * The process's tracer from the standard OpenTelemetry variables, or undefined when tracing is
 * off: no endpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT),
 * OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none. Off costs the hot path one check per
 * stage. A setting it cannot use is logged and left at its default: it never stops the gateway.
 */
export function tracerFromEnv(env: Env, options: TracerFromEnvOptions): Tracer | undefined {
  if (isTrue(env.OTEL_SDK_DISABLED) || (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return undefined;
  const url = tracesUrl(env);
  if (url === undefined) return undefined;
  const problem = (message: string) => options.log('telemetry.config_ignored', { level: 'warn', problem: message });
  // The URL is not repeated in these messages: its query or user info may carry a credential.
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    problem('the OTLP traces endpoint is not an http(s) URL: tracing is off');
    return undefined;
  }
  const { username, password } = new URL(url);
  if (username || password) {
    // fetch refuses such URLs, and its error quotes the URL, credential included.
    problem(`the OTLP traces endpoint ${displayUrl(url)} has user info: put the credential in OTEL_EXPORTER_OTLP_HEADERS (e.g. authorization=Basic%20...); tracing is off`);
    return undefined;
  }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json').trim();
  if (protocol !== 'http/json') problem(`OTEL_EXPORTER_OTLP_PROTOCOL ${JSON.stringify(protocol)}: toolgate exports OTLP/HTTP JSON (http/json), which collectors accept on the same /v1/traces endpoint`);
  const endpoint: OtlpEndpoint = {
    url,
    headers: { ...parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS, problem, 'OTEL_EXPORTER_OTLP_HEADERS'), ...parseKeyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, problem, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    timeoutMs: milliseconds(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT, 10_000, problem, 'OTEL_EXPORTER_OTLP_TIMEOUT'),
  };
  return new Tracer({
    exporter: new OtlpHttpExporter(endpoint, options.log, options.fetch, displayUrl(url)),
    sampler: sampler(env, problem),
    resource: resourceFromEnv(env, problem),
    schedule: options.schedule,
    captureContent: isTrue(env.TOOLGATE_OTEL_CAPTURE_CONTENT) || isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
    maxQueue: positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2048, problem, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    maxBatch: positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512, problem, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
    intervalMs: milliseconds(env.OTEL_BSP_SCHEDULE_DELAY, 5000, problem, 'OTEL_BSP_SCHEDULE_DELAY'),
    log: options.log,
  });
}

/** The signal's own endpoint is used as is; the general one gets /v1/traces appended (the spec's rule). */
function tracesUrl(env: Env): string | undefined {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (own) return own;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/** The endpoint as logs show it: no user info, no query (either may carry a credential). */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

function sampler(env: Env, problem: (message: string) => void): Sampler {
  try {
    return samplerFromEnv(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG);
  } catch (error) {
    problem(`${(error as Error).message}; using parentbased_always_on`);
    return samplerFromEnv(undefined, undefined);
  }
}

/** OTEL_RESOURCE_ATTRIBUTES (key=value pairs), with service.name from OTEL_SERVICE_NAME (default "toolgate"). */
function resourceFromEnv(env: Env, problem: (message: string) => void): Attributes {
  const fromList = parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES, problem, 'OTEL_RESOURCE_ATTRIBUTES');
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || fromList['service.name'] || 'toolgate';
  return { ...fromList, 'service.name': serviceName, 'telemetry.sdk.name': 'toolgate', 'telemetry.sdk.language': 'js' };
}

/** The spec's `key1=value1,key2=value2` lists (values percent-decoded); a malformed pair is skipped and said. */
export function parseKeyValues(value: string | undefined, problem: (message: string) => void, name: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of (value ?? '').split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = at > 0 ? item.slice(0, at).trim() : '';
    let decoded: string | undefined;
    try {
      decoded = at > 0 ? decodeURIComponent(item.slice(at + 1).trim()) : undefined;
    } catch {
      decoded = undefined;
    }
    // The pair itself is not repeated: header values are credentials.
    if (!key || decoded === undefined) problem(`${name} has a malformed entry (expected key=value, percent-encoded): it was skipped`);
    else pairs[key] = decoded;
  }
  return pairs;
}

function positive(value: string | undefined, fallback: number, problem: (message: string) => void, name: string): number {
  if (value === undefined || value.trim() === '') return fallback;
  const number = Number(value);
  if (Number.isInteger(number) && number > 0) return number;
  problem(`${name} must be a positive whole number (got ${JSON.stringify(value)}); using ${fallback}`);
  return fallback;
}

/** Timers take at most 2^31-1 ms (about 24 days): Node runs a longer one after 1 ms, AbortSignal.timeout throws. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function milliseconds(value: string | undefined, fallback: number, problem: (message: string) => void, name: string): number {
  const number = positive(value, fallback, problem, name);
  if (number <= MAX_TIMER_MS) return number;
  problem(`${name} must be at most ${MAX_TIMER_MS} ms (got ${JSON.stringify(value)}); using ${fallback}`);
  return fallback;
}
