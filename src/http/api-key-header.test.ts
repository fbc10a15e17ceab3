import { describe, expect, it } from 'vitest';
import { apiKeyFromHeaders } from './api-key-header.js';

describe('API key headers', () => {
  it('reads Bearer with any scheme case and surrounding blanks, or X-API-Key', () => {
    expect(apiKeyFromHeaders({ authorization: 'Bearer k1' })).toBe('k1');
    expect(apiKeyFromHeaders({ authorization: 'bEaReR \t k1 ' })).toBe('k1');
    expect(apiKeyFromHeaders({ 'x-api-key': ' k1 ' })).toBe('k1');
    expect(apiKeyFromHeaders({ authorization: 'Bearer k1', 'x-api-key': 'k1' })).toBe('k1');
  });

  it('gives null for none, other schemes, and two different keys', () => {
    expect(apiKeyFromHeaders({})).toBeNull();
    expect(apiKeyFromHeaders({ authorization: '' })).toBeNull();
    expect(apiKeyFromHeaders({ authorization: 'Basic abc' })).toBeNull();
    expect(apiKeyFromHeaders({ authorization: 'Basic abc', 'x-api-key': 'k1' })).toBeNull();
    expect(apiKeyFromHeaders({ authorization: 'Bearer a b' })).toBeNull();
    expect(apiKeyFromHeaders({ authorization: 'Bearer k1', 'x-api-key': 'k2' })).toBeNull();
  });
});
