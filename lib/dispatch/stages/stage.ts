import type { CallFailure } from '../call.ts';

/** A stage either hands its value to the next one or ends the call with a typed failure. */
export type StageResult<T> = { ok: true; value: T } | { ok: false; failure: CallFailure };

export const pass = <T>(value: T): StageResult<T> => ({ ok: true, value });
export const fail = (failure: CallFailure): StageResult<never> => ({ ok: false, failure });
