import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { onceCompiledSerializers } from './compiled-serializers.js';

const Thing = Type.Object({ name: Type.String(), count: Type.Integer() });
const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });

describe('response serializers', () => {
  it('are compiled once per schema for every app of the process, and write what the schema says', () => {
    const first = onceCompiledSerializers({}, undefined)(route(Thing));
    const again = onceCompiledSerializers({}, undefined)(route(Thing));
    expect(again).toBe(first);
    expect(first({ name: 'a "b"', count: 2, extra: true })).toBe('{"name":"a \\"b\\"","count":2}');
    // Another schema object, even of the same shape, has a serializer of its own.
    const copy = onceCompiledSerializers({}, undefined)(route({ ...Thing }));
    expect(copy).not.toBe(first);
  });

  it('are compiled again where shared schemas or options could shape them', () => {
    const plain = onceCompiledSerializers({}, undefined)(route(Thing));
    const shared = { Other: { $id: 'Other', type: 'string' } };
    expect(onceCompiledSerializers(shared, undefined)(route(Thing))).not.toBe(plain);
    const rounded = onceCompiledSerializers({}, { rounding: 'ceil' })(route(Thing));
    expect(rounded).not.toBe(plain);
    expect(rounded({ name: 'n', count: 1.2 })).toBe('{"name":"n","count":2}');
  });
});
