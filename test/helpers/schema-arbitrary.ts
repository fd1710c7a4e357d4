/**
 * fast-check arbitraries from the JSON Schemas of an OpenAPI document: values a schema accepts
 * (mixed with strings seen in real responses, so ids sometimes name real things) and values it
 * may refuse (wrong types, out of bounds, malformed).
 */
import fc from 'fast-check';

type Schema = Record<string, any>;

/** Builds arbitraries against one document. */
export class SchemaArbitraries {
  /**
   * @param doc the OpenAPI document (for `$ref`)
   * @param known strings seen in real responses (ids, names), offered among generated strings
   * @param knownNumbers integers that mean something (app ids), offered among generated integers
   */
  constructor(
    private readonly doc: any,
    private readonly known: readonly string[] = [],
    private readonly knownNumbers: readonly number[] = [],
  ) {}

  /** Values the schema accepts (or nearly: patterns and formats are honoured where they are simple). */
  valid(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema ?? {});
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    const union = s.anyOf ?? s.oneOf;
    if (Array.isArray(union))
      return fc.oneof(...union.map((branch: Schema) => this.valid(branch, depth + 1)));
    if (Array.isArray(s.allOf) && s.allOf.length > 0) return this.valid(s.allOf[0], depth + 1);
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : ['string'];
    return fc.oneof(...types.map((type) => this.ofType(type, s, depth)));
  }

  /** Values of any shape, mostly ones the schema refuses: wrong types, out of bounds, malformed text. */
  invalid(schema: Schema | undefined): fc.Arbitrary<unknown> {
    const s = this.resolve(schema ?? {});
    const outOfBounds: fc.Arbitrary<unknown>[] = [];
    if (typeof s.minimum === 'number') outOfBounds.push(fc.constant(s.minimum - 1));
    if (typeof s.maximum === 'number') outOfBounds.push(fc.constant(s.maximum + 1));
    if (typeof s.maxLength === 'number') outOfBounds.push(fc.constant('x'.repeat(s.maxLength + 1)));
    return fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('', ' ', 'abc', '-1', '1e3', '0x10', 'null', '1.5', '%', '../x'),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      ...outOfBounds,
    );
  }

  private ofType(type: string, s: Schema, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = bound(s.minimum, -1_000_000);
        const max = bound(s.maximum, 1_000_000);
        const known = this.knownNumbers.filter((n) => n >= min && n <= max);
        const any = fc.integer({ min, max });
        return known.length > 0 ? fc.oneof(fc.constantFrom(...known), any) : any;
      }
      case 'number': {
        const min = bound(s.minimum ?? s.exclusiveMinimum, -1_000_000);
        const max = bound(s.maximum, 1_000_000);
        // Whole cents or thousandths, which print in decimal notation as query values are sent.
        return fc.oneof(
          fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((c) => c / 100),
          fc.integer({ min: Math.ceil(min * 1000), max: Math.floor(max * 1000) }).map((m) => m / 1000),
        );
      }
      case 'array': {
        if (depth > 3) return fc.constant([]);
        const maxLength = Math.min(s.maxItems ?? 5, 5);
        return fc.array(this.valid(s.items, depth + 1), {
          minLength: Math.min(s.minItems ?? 0, maxLength),
          maxLength,
        });
      }
      case 'object':
        return depth > 3 ? fc.constant({}) : this.object(s, depth);
      default:
        return this.string(s);
    }
  }

  private object(s: Schema, depth: number): fc.Arbitrary<unknown> {
    const properties: Record<string, Schema> = s.properties ?? {};
    const shape = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, this.valid(property, depth + 1)]),
    );
    return fc.record(shape, { requiredKeys: (s.required ?? []).filter((k: string) => k in shape) });
  }

  private string(s: Schema): fc.Arbitrary<string> {
    const minLength = s.minLength ?? 0;
    const maxLength = Math.min(s.maxLength ?? 40, 60);
    const fits = (v: string) =>
      v.length >= minLength && v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY);
    if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
    if (typeof s.pattern === 'string' && s.pattern.length < 60) {
      return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
    }
    const generated = fc
      .oneof(
        fc.string({ unit: 'grapheme-ascii', minLength, maxLength }),
        fc.string({ unit: 'grapheme', minLength, maxLength }),
      )
      .filter(fits);
    const known = this.known.filter(fits);
    return known.length > 0 ? fc.oneof(fc.constantFrom(...known), generated) : generated;
  }

  private resolve(schema: Schema): Schema {
    let s = schema;
    for (let hops = 0; typeof s.$ref === 'string' && hops < 10; hops++) {
      const path = s.$ref.replace(/^#\//, '').split('/');
      s =
        path.reduce(
          (node: any, key: string) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')],
          this.doc,
        ) ?? {};
    }
    return s;
  }
}

function bound(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
