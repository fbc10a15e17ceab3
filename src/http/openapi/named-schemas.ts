import { isDeepStrictEqual } from 'node:util';

/** Where a named schema is declared in the document, and how it is referred to. */
const COMPONENTS_PREFIX = '#/components/schemas/';

/**
 * Keywords whose values are data (examples, enumerations, defaults), never schemas: an example
 * programme has a `title` too, and must stay as it is.
 */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set([
  'example',
  'examples',
  'enum',
  'const',
  'default',
]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Gives the document's named shapes their one declaration: every schema object with a `title`
 * under `paths` (schemas.ts titles the shapes of the contract) moves to `components.schemas` under
 * that title, and each place it appeared, in an operation or inside another named schema, becomes
 * a `$ref` to it. The routes keep validating and serialising with their whole schemas; only the
 * document names the parts. Two different schemas with one title would make one of them wrong, so
 * that throws.
 */
export function withNamedSchemas(document: Record<string, unknown>): Record<string, unknown> {
  const named = new Map<string, Json>();
  const declared = new Map<string, Json>();

  const refer = (node: Json, isRoot: boolean): Json => {
    if (Array.isArray(node)) return node.map((item) => refer(item, false));
    if (node === null || typeof node !== 'object') return node;
    const title = node.title;
    if (!isRoot && typeof title === 'string') {
      const earlier = named.get(title);
      if (earlier === undefined) {
        named.set(title, node);
        declared.set(title, refer(node, true));
      } else if (!isDeepStrictEqual(earlier, node)) {
        throw new Error(`two different schemas are titled ${title}`);
      }
      return { $ref: `${COMPONENTS_PREFIX}${title}` };
    }
    const out: { [key: string]: Json } = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = VALUE_KEYWORDS.has(key) ? value : refer(value, false);
    }
    return out;
  };

  const paths = refer(document.paths as Json, true);
  const components = (document.components ?? {}) as { [key: string]: Json };
  return {
    ...document,
    paths,
    components: {
      ...components,
      schemas: {
        ...(components.schemas as { [key: string]: Json } | undefined),
        ...Object.fromEntries([...declared].sort(([a], [b]) => a.localeCompare(b))),
      },
    },
  };
}
