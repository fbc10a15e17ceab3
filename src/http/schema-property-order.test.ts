import fastJson from 'fast-json-stringify';
import { Type, type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import * as schemas from './schemas.js';

/**
 * The response serializer (fast-json-stringify) writes an object's required properties before
 * its optional ones, whatever order the schema lists them in. The order an answer's fields come
 * in is part of what the docs, OpenAPI and webhook bodies show, so every schema lists its
 * required properties first: its order is then the serializer's (a change record once listed
 * `at` after its optional fields, and the docs followed the schema, not the answers).
 */

/** Paths of objects that list a required property after an optional one. */
function requiredAfterOptional(schema: unknown, path: string, seen = new Set<unknown>()): string[] {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return [];
  seen.add(schema);
  const s = schema as Record<string, unknown>;
  const found: string[] = [];
  const properties = s['properties'] as Record<string, unknown> | undefined;
  if (properties !== undefined) {
    const required = new Set((s['required'] as string[] | undefined) ?? []);
    const keys = Object.keys(properties);
    const firstOptional = keys.findIndex((k) => !required.has(k));
    const late = keys.slice(firstOptional === -1 ? keys.length : firstOptional);
    const misplaced = late.find((k) => required.has(k));
    if (misplaced !== undefined) found.push(`${path}.${misplaced}`);
    for (const [key, value] of Object.entries(properties)) {
      found.push(...requiredAfterOptional(value, `${path}.${key}`, seen));
    }
  }
  for (const key of ['items', 'anyOf', 'oneOf', 'allOf']) {
    const value = s[key];
    const parts = Array.isArray(value) ? value : value === undefined ? [] : [value];
    parts.forEach((part, i) =>
      found.push(...requiredAfterOptional(part, `${path}.${key}[${i}]`, seen)),
    );
  }
  return found;
}

describe('response schemas', () => {
  it('list required properties before optional ones, the order their answers come in', () => {
    const checked = Object.entries(schemas).filter(([, value]) => typeof value === 'object');
    expect(checked.length).toBeGreaterThan(20);
    expect(checked.flatMap(([name, value]) => requiredAfterOptional(value, name))).toEqual([]);
  });

  it('would notice one that does not, as the serializer reorders it', () => {
    const late = Type.Object({ a: Type.Optional(Type.String()), b: Type.String() });
    expect(requiredAfterOptional(late, 'late')).toEqual(['late.b']);
    expect(fastJson(late as TSchema & object)({ a: 'x', b: 'y' })).toBe('{"b":"y","a":"x"}');
  });
});
