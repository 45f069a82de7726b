/**
 * A field's path as the guides write it, `body.data.items[0].qty`: keys after dots, array indexes
 * in brackets. Every error detail, warning and message naming a field is spelled this way.
 */
export function fieldPath(root: string, segments: readonly (string | number)[]): string {
  let path = root;
  for (const segment of segments) {
    if (segment === '') continue;
    const index = typeof segment === 'number' || /^\d+$/.test(segment);
    path += index ? `[${segment}]` : path ? `.${segment}` : segment;
  }
  return path;
}
