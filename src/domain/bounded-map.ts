/**
 * Sets `key` to `value` in `map`, then, when the map holds more than `max` entries, forgets the
 * one set longest ago (a Map keeps its keys in the order they were first set; delete a key
 * before setting it again to move it to the end). The bound of the server's in-memory memos.
 */
export function setWithin<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}
