import { describe, expect, it } from 'vitest';
import { withNamedSchemas } from './named-schemas.js';

const item = { type: 'object', title: 'Item', properties: { title: { type: 'string' } } };
const list = {
  type: 'object',
  title: 'List',
  properties: { items: { type: 'array', items: item } },
};
const json = (schema: unknown, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});

describe('withNamedSchemas', () => {
  it('declares each titled schema once and refers to it wherever it appears', () => {
    const document = withNamedSchemas({
      openapi: '3.1.0',
      paths: {
        '/a': { get: { responses: { 200: json(list), 201: json(item) } } },
        '/b': { get: { responses: { 200: json({ anyOf: [item, { type: 'null' }] }) } } },
      },
      components: { securitySchemes: { key: { type: 'http' } } },
    });
    expect(document.paths).toEqual({
      '/a': {
        get: {
          responses: {
            200: json({ $ref: '#/components/schemas/List' }),
            201: json({ $ref: '#/components/schemas/Item' }),
          },
        },
      },
      '/b': {
        get: {
          responses: {
            200: json({ anyOf: [{ $ref: '#/components/schemas/Item' }, { type: 'null' }] }),
          },
        },
      },
    });
    expect(document.components).toEqual({
      securitySchemes: { key: { type: 'http' } },
      schemas: {
        Item: item,
        List: {
          ...list,
          properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
        },
      },
    });
  });

  it('leaves examples alone, whatever they hold', () => {
    const example = { title: 'Item', type: 'object' };
    const document = withNamedSchemas({ paths: { '/a': { get: json(item, example) } } });
    expect((document.paths as Record<string, { get: unknown }>)['/a']?.get).toEqual(
      json({ $ref: '#/components/schemas/Item' }, example),
    );
  });

  it('refuses two different schemas under one title', () => {
    const other = { ...item, properties: { name: { type: 'string' } } };
    expect(() =>
      withNamedSchemas({ paths: { '/a': { get: json({ anyOf: [item, other] }) } } }),
    ).toThrow('two different schemas are titled Item');
  });
});
