/**
 * A Map that keeps at most `capacity` entries: setting a new key when full forgets the oldest one
 * (insertion order). The one shape of the process's memoised values (opened secrets, verified
 * tokens, parsed menus, local times), each of which is cheap to compute again when forgotten.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly capacity: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.capacity && !this.has(key)) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}
