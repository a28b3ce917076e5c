import { anthropicFormat } from './anthropic.ts';
import { geminiFormat } from './gemini.ts';
import { openaiFormat } from './openai.ts';
import { responsesFormat } from './responses.ts';
import { CALL_FORMATS, type CallFormat, type ProviderFormat } from './provider-format.ts';

export const PROVIDER_FORMATS: Record<CallFormat, ProviderFormat> = {
  openai: openaiFormat,
  responses: responsesFormat,
  anthropic: anthropicFormat,
  gemini: geminiFormat,
};

export function isCallFormat(value: unknown): value is CallFormat {
  return typeof value === 'string' && (CALL_FORMATS as readonly string[]).includes(value);
}

export { CallFormatError, CALL_FORMATS, type CallFormat, type ProviderFormat } from './provider-format.ts';
