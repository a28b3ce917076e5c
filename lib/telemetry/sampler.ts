import type { SpanContext } from './trace-context.ts';

/** Whether a new span's trace is recorded, from its parent (if any) and its trace id. */
export type Sampler = (parent: SpanContext | undefined, traceId: string) => boolean;

const alwaysOn: Sampler = () => true;
const alwaysOff: Sampler = () => false;

/** Samples a fixed share of traces, decided by the trace id (so every service agrees on a trace). */
function traceIdRatio(ratio: number): Sampler {
  if (!(ratio > 0)) return alwaysOff;
  if (ratio >= 1) return alwaysOn;
  // The id's last 14 hex digits (56 random bits) as a number in [0, 1).
  const bound = Math.floor(ratio * 2 ** 56);
  return (_parent, traceId) => parseInt(traceId.slice(-14), 16) < bound;
}

/** A caller's decision (its sampled flag) is kept; a trace that starts here asks `root`. */
function parentBased(root: Sampler): Sampler {
  return (parent, traceId) => (parent ? parent.sampled : root(parent, traceId));
}

export class SamplerConfigError extends Error {}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on, as the spec says). */
export function samplerFromEnv(name: string | undefined, arg: string | undefined): Sampler {
  const ratio = () => {
    const value = arg === undefined || arg.trim() === '' ? 1 : Number(arg);
    if (!Number.isFinite(value) || value < 0 || value > 1) throw new SamplerConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 (got ${JSON.stringify(arg)})`);
    return value;
  };
  switch ((name ?? '').trim().toLowerCase()) {
    case '':
    case 'parentbased_always_on':
      return parentBased(alwaysOn);
    case 'always_on':
      return alwaysOn;
    case 'always_off':
      return alwaysOff;
    case 'parentbased_always_off':
      return parentBased(alwaysOff);
    case 'traceidratio':
      return traceIdRatio(ratio());
    case 'parentbased_traceidratio':
      return parentBased(traceIdRatio(ratio()));
    default:
      throw new SamplerConfigError(`OTEL_TRACES_SAMPLER "${name}" is not supported: use always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio`);
  }
}
