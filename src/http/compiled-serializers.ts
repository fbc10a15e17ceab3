import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/** Each response schema's serializer, by the schema object, for every app of the process. */
const compiled = new WeakMap<object, Serializer>();
const compileWithFastify = SerializerSelector();

/**
 * Fastify's serializer compiler (fast-json-stringify, as Fastify's default), with each response
 * schema compiled once per process rather than once per route and app: the schemas are module
 * constants (an app asked for 182 serializers of 19 distinct schemas, the error body's for most
 * routes), and compiling them was most of building an app. `createTestApp` in a loop on a slow
 * two-core guest: the first app 561-675 ms before, 407-498 after; each later one 304-336 ms
 * before, 134-147 after (the test suite builds one per test, docs/testing.md). A serializer is
 * a pure function of its schema; where shared schemas or options could also shape it (the app
 * adds none), it is compiled as Fastify would.
 */
export const onceCompiledSerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = compileWithFastify(externalSchemas, options);
  const shareable = isEmpty(externalSchemas) && isEmpty(options);
  return (route) => {
    const schema = route.schema;
    if (!shareable || typeof schema !== 'object' || schema === null) return compile(route);
    let serializer = compiled.get(schema);
    if (serializer === undefined) {
      serializer = compile(route);
      compiled.set(schema, serializer);
    }
    return serializer;
  };
};

function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'object' && Object.keys(value).length === 0)
  );
}
