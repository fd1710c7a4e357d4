/**
 * The finishing pass of the OpenAPI document: component schemas from the contract's zod
 * registry, only those the operations reach (no unused `*Input` twins), the tags the
 * operations use, each with the description its feature gives, and the notation of query numbers.
 */
import type { SwaggerTransformObject } from '@fastify/swagger';
import { createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { documentJsonSchema, REQUIRED_HEADER } from '../../shared/openapi-json-schema.js';

const SCHEMA_REF = '#/components/schemas/';

type Json = Record<string, unknown>;

/** The `transformObject` of @fastify/swagger, given every feature's tag descriptions. */
export function documentObject(tagDescriptions: Readonly<Record<string, string>>): SwaggerTransformObject {
  const zodObject = createJsonSchemaTransformObject({ zodToJsonConfig: { override: documentJsonSchema } });
  return (input) => {
    const doc = zodObject(input) as Json & { paths?: Json; components?: Json & { schemas?: Json } };
    const tags = usedTags(doc.paths ?? {}).map((name) => {
      const description = tagDescriptions[name];
      return description === undefined ? { name } : { name, description };
    });
    liftRequiredHeaders(doc.paths ?? {});
    describeQueryNumbers(doc.paths ?? {});
    const schemas = doc.components?.schemas ?? {};
    const reached = reachedSchemas(doc, schemas);
    const kept = Object.entries(schemas).filter(([name]) => reached.has(name));
    return renameLoneInputs({
      ...doc,
      tags,
      components: { ...doc.components, schemas: Object.fromEntries(kept) },
    });
  };
}

/**
 * The type provider names a schema's request side `<Name>Input`; when only that side is in the
 * document (a request body), it takes the plain name.
 */
function renameLoneInputs(doc: Json & { components: Json & { schemas: Json } }): never {
  const names = new Set(Object.keys(doc.components.schemas));
  const renames = new Map<string, string>();
  for (const name of names) {
    const plain = name.replace(/Input$/, '');
    if (plain !== name && !names.has(plain)) renames.set(`${SCHEMA_REF}${name}`, `${SCHEMA_REF}${plain}`);
  }
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        key === '$ref' && typeof child === 'string' ? (renames.get(child) ?? child) : rewrite(child),
      ]),
    );
  };
  const schemas = Object.fromEntries(
    Object.entries(doc.components.schemas).map(([name, schema]) => [
      renames.get(`${SCHEMA_REF}${name}`)?.slice(SCHEMA_REF.length) ?? name,
      schema,
    ]),
  );
  return rewrite({ ...doc, components: { ...doc.components, schemas } }) as never;
}

/** A response header marked always sent becomes `required: true` (beside its schema, not in it). */
function liftRequiredHeaders(paths: Json): void {
  for (const item of Object.values(paths) as Json[])
    for (const operation of Object.values(item) as Json[])
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>))
        for (const header of Object.values(
          (response.headers ?? {}) as Record<string, Json & { schema?: Json }>,
        )) {
          if (!header.schema?.[REQUIRED_HEADER]) continue;
          delete header.schema[REQUIRED_HEADER];
          header.required = true;
        }
}

/** What a number in a query string may look like, said on every query parameter that is one. */
const QUERY_NUMBER_NOTATION =
  'Decimal notation only (12 or 12.5): exponent (1e3) and hex (0x10) forms, an empty value and a repeated parameter are refused with 400 invalid_param.';

/** A query-string number is text on the wire: its description says which texts the number takes. */
function describeQueryNumbers(paths: Json): void {
  for (const item of Object.values(paths) as Json[])
    for (const operation of Object.values(item) as Json[])
      for (const parameter of (operation.parameters ?? []) as (Json & { schema?: Json })[]) {
        const type = parameter.schema?.type;
        if (parameter.in !== 'query' || (type !== 'number' && type !== 'integer')) continue;
        parameter.description = [parameter.description, QUERY_NUMBER_NOTATION].filter(Boolean).join('. ');
      }
}

/** Tags of the operations, in order of first use. */
function usedTags(paths: Json): string[] {
  const tags = new Set<string>();
  for (const item of Object.values(paths) as Json[])
    for (const operation of Object.values(item) as Json[])
      for (const tag of (operation.tags as string[] | undefined) ?? []) tags.add(tag);
  return [...tags];
}

/** Names of the component schemas reached from outside `components.schemas`, following their refs. */
function reachedSchemas(doc: Json, schemas: Json): Set<string> {
  const reached = new Set<string>();
  const pending: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMA_REF)) {
        const name = child.slice(SCHEMA_REF.length);
        if (!reached.has(name)) {
          reached.add(name);
          pending.push(name);
        }
      } else visit(child);
    }
  };
  visit({ ...doc, components: { ...(doc.components as Json), schemas: {} } });
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) visit(schemas[name]);
  return reached;
}
