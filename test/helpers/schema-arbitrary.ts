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
        const above = (v: number) => typeof s.exclusiveMinimum !== 'number' || v > s.exclusiveMinimum;
        // Whole cents or thousandths, which print in decimal notation as query values are sent;
        // whole multiples of multipleOf when it is set.
        const steps = typeof s.multipleOf === 'number' ? [1 / s.multipleOf] : [100, 1000];
        return fc
          .oneof(
            ...steps.map((per) =>
              fc
                .integer({ min: Math.ceil(min * per), max: Math.floor(max * per) })
                .map((n) => Number((n / per).toFixed(6))),
            ),
          )
          .filter(above);
      }
      case 'array': {
        if (depth > 3) return fc.constant([]);
        const maxLength = Math.min(s.maxItems ?? 5, 5);
        const constraints = { minLength: Math.min(s.minItems ?? 0, maxLength), maxLength };
        const item = this.valid(s.items, depth + 1);
        return s.uniqueItems
          ? fc.uniqueArray(item, { ...constraints, selector: (v) => JSON.stringify(v) })
          : fc.array(item, constraints);
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
    const record = fc.record(shape, { requiredKeys: (s.required ?? []).filter((k: string) => k in shape) });
    const fewest = s.minProperties ?? 0;
    return fewest > 0 ? record.filter((r) => Object.keys(r).length >= fewest) : record;
  }

  private string(s: Schema): fc.Arbitrary<string> {
    const minLength = s.minLength ?? 0;
    const maxLength = Math.min(s.maxLength ?? 40, 60);
    const fits = (v: string) =>
      v.length >= minLength && v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY);
    // RFC 3339 years have four digits (toISOString writes ±YYYYYY beyond them).
    if (s.format === 'date-time')
      return fc
        .date({ min: FIRST_RFC3339_DAY, max: LAST_RFC3339_DAY, noInvalidDate: true })
        .map((d) => d.toISOString());
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

const FIRST_RFC3339_DAY = new Date('0000-01-01T00:00:00.000Z');
const LAST_RFC3339_DAY = new Date('9999-12-31T23:59:59.999Z');

function bound(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
