/**
 * How the contract's zod schemas read in the OpenAPI document: a query-string number (a string
 * parsed into a bounded number) is documented as the number it stands for, with its real bounds,
 * an integer without bounds of its own prints none (not ±9007199254740991), and a union with one
 * branch that says something is that branch.
 */
import { z } from 'zod';

/** Marks the schema of a response header that is always sent, until the document pass makes it `required`. */
export const REQUIRED_HEADER = 'x-required-header';

/** The context zod hands a JSON Schema override: the zod node and its JSON Schema, edited in place. */
export interface OverrideContext {
  zodSchema: z.core.$ZodType;
  jsonSchema: z.core.JSONSchema.BaseSchema;
}

/** Keywords of the string side of a query-string number, replaced by those of the number. */
const STRING_KEYWORDS = ['type', 'pattern', 'minLength', 'maxLength', 'format'] as const;

/** The JSON Schema override of the document (give it to zod's `toJSONSchema` as `override`). */
export function documentJsonSchema(ctx: OverrideContext): void {
  const json = ctx.jsonSchema;
  // As the type provider's own override does: a union branch that says nothing is dropped.
  if (ctx.zodSchema._zod.def.type === 'union' && json.anyOf) {
    json.anyOf = json.anyOf.filter((branch) => Object.keys(branch).length > 0);
    // A union left with one branch is that branch (an anyOf of one is a lint warning).
    const [only, ...others] = json.anyOf;
    if (only && others.length === 0) {
      delete json.anyOf;
      Object.assign(json, only);
    }
  }
  const number = wireNumberOf(ctx.zodSchema);
  if (number && json.type === 'string') {
    for (const keyword of STRING_KEYWORDS) delete json[keyword];
    Object.assign(json, number);
  }
  dropSafeIntegerBounds(json);
}

/**
 * The JSON Schema of the number a pipe from a string to a number parses (`queryInteger`,
 * `queryNumber`); undefined for any other schema.
 */
function wireNumberOf(schema: z.core.$ZodType): z.core.JSONSchema.BaseSchema | undefined {
  if (schema._zod.def.type !== 'pipe') return undefined;
  let input = schema;
  while (input._zod.def.type === 'pipe') input = (input._zod.def as z.core.$ZodPipeDef).in;
  let output = schema;
  while (output._zod.def.type === 'pipe') output = (output._zod.def as z.core.$ZodPipeDef).out;
  if (input._zod.def.type !== 'string' || output._zod.def.type !== 'number') return undefined;
  const { $schema: _, ...number } = z.toJSONSchema(output, { io: 'output' });
  dropSafeIntegerBounds(number);
  return number;
}

/** zod bounds every `int()` by the safe-integer range; those bounds say nothing to a reader. */
function dropSafeIntegerBounds(json: z.core.JSONSchema.BaseSchema): void {
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
}
