/**
 * `value` without the object keys whose value is null, at any depth (a null in an array stays):
 * serialisers write `"description": null` for a field they have no value for, and a contract's
 * optional field reads it as absent (a required one is still named missing).
 * The same value back when it holds no null (most bodies): a body is copied only where it changes.
 */
export function withoutNulls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = withoutNulls(value[i]);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const was = (value as Record<string, unknown>)[key];
    const v = was === null ? undefined : withoutNulls(was);
    if (v === was) continue;
    out ??= { ...value };
    if (v === undefined) delete out[key];
    else out[key] = v;
  }
  return out ?? value;
}
