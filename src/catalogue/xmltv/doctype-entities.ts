/**
 * Internal-subset entity declarations (`<!DOCTYPE tv [ <!ENTITY nbsp "&#160;"> ]>`), accepted
 * only in the form that cannot blow up: an internal general entity whose value is plain text,
 * character references and the five predefined entities. Everything that could expand without
 * bound or reach outside the file is refused with a clear error instead:
 *
 * - a reference to another declared entity inside a value (so no nesting, no "billion laughs");
 * - parameter entities (`<!ENTITY % x …>`, `%x;`) and external entities (`SYSTEM`/`PUBLIC`);
 * - markup (`<`) inside a value.
 *
 * On top of that the reader caps the total number of characters entity references may add to
 * a document (see `MAX_ENTITY_EXPANSION_CHARS`).
 */

/** Most entity declarations accepted in one DOCTYPE. */
export const MAX_ENTITY_DECLARATIONS = 1000;
/** Longest replacement text accepted for one entity, in characters. */
export const MAX_ENTITY_VALUE_CHARS = 4096;
/** Most characters that declared-entity references may add to one document in total. */
export const MAX_ENTITY_EXPANSION_CHARS = 16 * 1024 * 1024;

/** A DOCTYPE whose entity declarations are outside what the reader accepts. */
export class EntityDeclarationError extends Error {
  override name = 'EntityDeclarationError';
  /** Index in the DOCTYPE text of the declaration at fault (set by parseEntityDeclarations). */
  offset = 0;
}

export const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

const NAME = /^[:A-Z_a-z\u00C0-\uFFFF][:A-Z_a-z\u00C0-\uFFFF0-9.\u00B7-]*$/;

/** Index just after `close`, searching from `from`, honouring nothing; -1 when absent. */
function after(text: string, close: string, from: number): number {
  const at = text.indexOf(close, from);
  return at < 0 ? -1 : at + close.length;
}

/** Index just after the `>` that ends a declaration starting at `from`, skipping quoted parts. */
function declarationEnd(text: string, from: number): number {
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '>') {
      return i + 1;
    }
  }
  return -1;
}

/** Index just after the `[` that opens a DOCTYPE's internal subset, or -1 when it has none. */
function internalSubsetStart(doctype: string): number {
  let quote = '';
  for (let i = 0; i < doctype.length; i++) {
    const c = doctype[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '[') {
      return i + 1;
    }
  }
  return -1;
}

/** Expands character references and predefined entities in an entity's literal value. */
function replacementText(name: string, literal: string): string {
  if (literal.includes('<')) {
    throw new EntityDeclarationError(
      `entity "${name}" contains markup; only plain-text entity values are supported`,
    );
  }
  if (literal.includes('%')) {
    throw new EntityDeclarationError(
      `entity "${name}" uses a parameter entity; parameter entities are not supported`,
    );
  }
  const text = literal.replace(/&([^;&]*);?/g, (match: string, ref: string) => {
    if (!match.endsWith(';')) {
      throw new EntityDeclarationError(`entity "${name}" has an unterminated reference`);
    }
    const hex = /^#x([0-9a-fA-F]{1,6})$/.exec(ref);
    const dec = /^#([0-9]{1,7})$/.exec(ref);
    const code =
      hex?.[1] !== undefined ? parseInt(hex[1], 16) : dec?.[1] !== undefined ? Number(dec[1]) : NaN;
    if (!Number.isNaN(code)) {
      const valid =
        code === 0x9 ||
        code === 0xa ||
        code === 0xd ||
        (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) ||
        (code >= 0x10000 && code <= 0x10ffff);
      if (!valid) throw new EntityDeclarationError(`entity "${name}" has an invalid character`);
      return String.fromCodePoint(code);
    }
    const predefined = PREDEFINED_ENTITIES[ref];
    if (predefined !== undefined) return predefined;
    throw new EntityDeclarationError(
      `entity "${name}" refers to entity "${ref}"; nested entity references are not supported`,
    );
  });
  if (text.length > MAX_ENTITY_VALUE_CHARS) {
    throw new EntityDeclarationError(
      `entity "${name}" is longer than ${MAX_ENTITY_VALUE_CHARS} characters`,
    );
  }
  return text;
}

/**
 * Reads the general entity declarations of a DOCTYPE (its text as saxes reports it, without
 * `<!DOCTYPE` and the final `>`). Returns name → replacement text; the first declaration of a
 * name wins, as in XML, and the predefined entities cannot be redefined. Throws
 * EntityDeclarationError for anything the module comment says is refused.
 */
export function parseEntityDeclarations(doctype: string): Map<string, string> {
  const entities = new Map<string, string>();
  const start = internalSubsetStart(doctype);
  if (start < 0) return entities;
  const end = doctype.lastIndexOf(']');
  const subset = doctype.slice(start, end > start ? end : undefined);
  let at = 0;
  try {
    readDeclarations(subset, entities, (i) => (at = i));
  } catch (error) {
    if (error instanceof EntityDeclarationError) error.offset = start + at;
    throw error;
  }
  return entities;
}

function readDeclarations(
  subset: string,
  entities: Map<string, string>,
  track: (index: number) => void,
): void {
  let count = 0;
  let i = 0;
  while (i < subset.length) {
    track(i);
    const c = subset[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    let end: number;
    if (subset.startsWith('<!--', i)) {
      end = after(subset, '-->', i + 4);
    } else if (subset.startsWith('<?', i)) {
      end = after(subset, '?>', i + 2);
    } else if (subset.startsWith('<!ENTITY', i)) {
      end = declarationEnd(subset, i);
      if (end < 0) throw new EntityDeclarationError('unterminated <!ENTITY declaration');
      if (++count > MAX_ENTITY_DECLARATIONS) {
        throw new EntityDeclarationError(
          `more than ${MAX_ENTITY_DECLARATIONS} entity declarations in the DOCTYPE`,
        );
      }
      const declaration = subset.slice(i + '<!ENTITY'.length, end - 1).trim();
      if (declaration.startsWith('%')) {
        throw new EntityDeclarationError(
          'the DOCTYPE declares a parameter entity; parameter entities are not supported',
        );
      }
      const m = /^(\S+)\s+(?:"([^"]*)"|'([^']*)'|(SYSTEM|PUBLIC)\b.*)\s*$/s.exec(declaration);
      if (m === null || m[1] === undefined || !NAME.test(m[1])) {
        throw new EntityDeclarationError(`malformed entity declaration "<!ENTITY ${declaration}>"`);
      }
      const name = m[1];
      if (m[4] !== undefined) {
        throw new EntityDeclarationError(
          `entity "${name}" is external (${m[4]}); external entities are not supported`,
        );
      }
      const value = replacementText(name, m[2] ?? m[3] ?? '');
      if (PREDEFINED_ENTITIES[name] === undefined && !entities.has(name)) {
        entities.set(name, value);
      }
    } else if (subset.startsWith('<!', i)) {
      end = declarationEnd(subset, i);
    } else if (c === '%') {
      throw new EntityDeclarationError(
        'the DOCTYPE uses a parameter entity reference; parameter entities are not supported',
      );
    } else {
      throw new EntityDeclarationError(
        `unexpected text in the DOCTYPE: "${subset.slice(i, i + 20)}"`,
      );
    }
    if (end < 0) throw new EntityDeclarationError('unterminated declaration in the DOCTYPE');
    i = end;
  }
}
