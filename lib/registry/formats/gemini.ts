import type { ToolDefinition } from '../definition.ts';
import { toGeminiSchema } from './gemini-schema.ts';

/** One Gemini `tools` entry holding every function declaration. Throws GeminiSchemaError. */
export function toGeminiTools(definitions: ToolDefinition[]) {
  return [
    {
      functionDeclarations: definitions.map((d) => ({
        name: d.name,
        description: d.description,
        parameters: toGeminiSchema(d.name, d.input_schema),
      })),
    },
  ];
}
